"""What the converters of peers' eval files share (project/peer_skillgrade.py, project/peer_skilllens.py):
the file read with its places, errors and notes that name the line and column, scenario ids from
names, file references, and paths rewritten for the folder the skill-be eval file is written to."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.places import Places
from skill_be.project.rules import valid_file_name
from skill_be.project.where import type_name
from skill_be.project.yamlfile import load_yaml

Loc = list[str | int]


@dataclass
class Conversion:
    """One peer file converted: the skill it belongs to, the eval file's data and a warning per item
    that has no equivalent."""

    skill_dir: Path
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)


class PeerFile:
    """A peer's YAML file, its data and places; `error` and `note` name a key path's line and column."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.name = shown(path)
        text = read_text(path, what=what)
        self.data: Any = load_yaml(text, self.name)
        self.places = Places(text, "yaml")
        self._notes: dict[str, list[Any]] = {}  # kind -> [where, words, how many, (line, column), places]

    def at(self, loc: Loc, key: bool = False) -> str:
        place = self.places.find(loc, key=key)
        where = f"{self.name}:{place[0]}:{place[1]}" if place else self.name
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        return f"{where}: {dotted}" if dotted else where

    def error(self, loc: Loc, message: str) -> NoReturn:
        raise ConfigError(f"{self.at(loc)}: {message}")

    def note(self, loc: Loc, message: str, once: str | None = None) -> None:
        """A warning at `loc`; with `once`, one line for every item of that kind, saying how many more."""
        key = once or f"{len(self._notes)}"
        where = self.at(loc, key=True)
        if key in self._notes:
            if where not in self._notes[key][4]:  # the same item seen again (a default, per task) is one
                self._notes[key][2] += 1
                self._notes[key][4].add(where)
            return
        self._notes[key] = [where, message, 1, self.places.find(loc, key=True) or (0, 0), {where}]

    @property
    def notes(self) -> list[str]:
        """The warnings in the file's order."""
        return [
            f"warning: {at}{f' (and {n - 1} more like it)' if n > 1 else ''}: {message}"
            for at, message, n, _, _ in sorted(self._notes.values(), key=lambda v: v[3])
        ]

    def mapping(self, value: object, loc: Loc, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.error(loc, f"must be {what}, not {type_name(value)}")
        return value

    def items(self, value: object, loc: Loc, what: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.error(loc, f"must be a list of {what}, not {type_name(value)}")
        return value

    def text(self, value: object, loc: Loc, what: str = "a non-empty string") -> str:
        """A non-empty string at `loc` (a missing key is `needs "key"` at its mapping)."""
        if value is None and loc and isinstance(loc[-1], str):
            self.error(loc[:-1], f'needs "{loc[-1]}", {what}')
        if not isinstance(value, str) or not value.strip():
            self.error(loc, f"must be {what}, not {type_name(value) if not isinstance(value, str) else 'empty'}")
        return value


def scenario_id(name: str, taken: set[str]) -> str:
    """A scenario id from a peer's task or case name: lower case, words joined by "-", unique."""
    base = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-.") or "case"
    base = base[:120]
    sid, n = base, 2
    while sid in taken or not valid_file_name(sid):
        sid, n = f"{base}-{n}", n + 1
    taken.add(sid)
    return sid


def relative(path: Path, folder: Path) -> str:
    """`path` as the written eval file names it: relative to the folder it is written to, posix."""
    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def file_reference(value: str, base: Path) -> Path | None:
    """The file a one-line value names, skillgrade's way: the value itself is a path beside the file."""
    v = value.strip()
    if "\n" in v or not v:
        return None
    candidate = base / v
    return candidate if candidate.is_file() else None


def read_reference(peer: PeerFile, value: str, loc: Loc) -> str:
    """A string value, or the text of the file it names (file references are read)."""
    ref = file_reference(value, peer.path.parent)
    if ref is None:
        return value.strip()
    try:
        return ref.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        peer.error(loc, f'"{value.strip()}" names a file that cannot be read as UTF-8 text ({e}); fix it')
