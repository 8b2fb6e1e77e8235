"""Package lists (`test-packages.json`): what the code tests may import, read and checked: an `npm`
section for TypeScript tests, a `pip` section for Python ones."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text

_PATH_LIKE = re.compile(r"^(\.|/|[A-Za-z]:[\\/])")


class PackageList(NamedTuple):
    path: Path
    npm: tuple[str, ...]  # entries as npm install takes them, local paths made absolute
    pip: tuple[str, ...] = ()  # entries as pip install takes them, local paths made absolute

    def entries(self, language: str) -> tuple[str, ...]:
        """The section a language's tests install: npm for TypeScript, pip for Python."""
        return self.pip if language == "python" else self.npm


SECTIONS = ("npm", "pip")
EXAMPLES = {"npm": '["express@5"]', "pip": '["attrs==23.*"]'}
WHAT = {"npm": "anything npm install accepts", "pip": "a requirement or a path pip install accepts"}


def _resolve_entry(entry: str, base: Path) -> str:
    if entry.startswith("file:"):
        target = entry.removeprefix("file:")
        return "file:" + str((base / target).resolve()) if not Path(target).is_absolute() else entry
    if _PATH_LIKE.match(entry) and not Path(entry).is_absolute():
        return str((base / entry).resolve())
    return entry


def read_package_list(path: Path) -> PackageList:
    """The `npm` and `pip` sections; another section is an error."""
    name = shown(path)
    text = read_text(path, what="package list")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}: line {e.lineno}, column {e.colno}: invalid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise ConfigError(f'{name}: must be a JSON object with an "npm" list, such as {{"npm": ["express@5"]}}')
    for section in data:
        if section not in SECTIONS:
            raise ConfigError(
                f'{name}: section "{section}" is not supported: a package list has an "npm" section for TypeScript '
                'code tests and a "pip" section for Python ones (see "Packages the code and the tests may import" '
                "in the code-tests guide)"
            )
    npm, pip = (_section(data, section, name, path.parent) for section in SECTIONS)
    return PackageList(path=path, npm=npm, pip=pip)


def _section(data: dict[str, object], section: str, name: str, base: Path) -> tuple[str, ...]:
    entries = data.get(section, [])
    if not isinstance(entries, list):
        raise ConfigError(f"{name}: {section}: must be a list of package specs, such as {EXAMPLES[section]}")
    out: list[str] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, str) or not entry.strip():
            raise ConfigError(f"{name}: {section}[{i}]: must be a non-empty string ({WHAT[section]})")
        if section == "pip" and entry.strip().startswith("-"):
            raise ConfigError(
                f'{name}: pip[{i}]: "{entry.strip()}" is an option, not a package; put pip\'s options in a pip.conf '
                "beside the config"
            )
        out.append(_resolve_entry(entry.strip(), base))
    return tuple(out)
