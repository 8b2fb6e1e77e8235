"""Package lists (`test-packages.json`): what the code tests may import, read and checked."""

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


def _resolve_entry(entry: str, base: Path) -> str:
    if entry.startswith("file:"):
        target = entry.removeprefix("file:")
        return "file:" + str((base / target).resolve()) if not Path(target).is_absolute() else entry
    if _PATH_LIKE.match(entry) and not Path(entry).is_absolute():
        return str((base / entry).resolve())
    return entry


def read_package_list(path: Path) -> PackageList:
    """Only the `npm` section is read; another section is an error, since code tests are TypeScript only."""
    name = shown(path)
    text = read_text(path, what="package list")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}: line {e.lineno}, column {e.colno}: invalid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise ConfigError(f'{name}: must be a JSON object with an "npm" list, such as {{"npm": ["express@5"]}}')
    for section in data:
        if section != "npm":
            raise ConfigError(
                f'{name}: section "{section}" is not supported: code tests are TypeScript only for now, '
                'so only "npm" is read (see "Other languages" in the README)'
            )
    entries = data.get("npm", [])
    if not isinstance(entries, list):
        raise ConfigError(f'{name}: npm: must be a list of package specs, such as ["express@5"]')
    out: list[str] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, str) or not entry.strip():
            raise ConfigError(f"{name}: npm[{i}]: must be a non-empty string (anything npm install accepts)")
        out.append(_resolve_entry(entry.strip(), path.parent))
    return PackageList(path=path, npm=tuple(out))
