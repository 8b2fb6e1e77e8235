"""Print the dependencies that pyproject.toml lists, one a line, for `pip install -r`.

The image build installs them before copying skill-be's source, so that a source change does not
reinstall them. Usage: python3 requirements.py pyproject.toml"""

import sys
import tomllib

with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["dependencies"]))
