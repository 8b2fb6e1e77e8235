"""Print the dependencies that pyproject.toml lists, one a line, for `pip install -r`.

The image build installs them before copying skill-be's source, so that a source change does not
reinstall them. Names after the file add those packages from the optional dependencies with the
version pyproject.toml gives them there (mypy, for the `python` typecheck preset's `mypy: true`).
Usage: python3 requirements.py pyproject.toml [NAME...]"""

import re
import sys
import tomllib

with open(sys.argv[1], "rb") as f:
    project = tomllib.load(f)["project"]
lines = list(project["dependencies"])
for name in sys.argv[2:]:
    found = [
        req
        for reqs in project.get("optional-dependencies", {}).values()
        for req in reqs
        if re.split(r"[\s<>=!~\[;]", req, maxsplit=1)[0].lower() == name.lower()
    ]
    if not found:
        sys.exit(f"requirements.py: {name} is not among the optional dependencies of {sys.argv[1]}")
    lines.append(found[0])
print("\n".join(lines))
