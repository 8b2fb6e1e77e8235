"""A place in a file for the checks that run after a file's model (a missing folder, a check's
settings, an adapter's start): `Where` names the file, line and column and the key path. Also the
words the models share: a value's type as a person reads it, and did-you-mean. The values themselves
are checked by the models (project/models.py, project/adapter_settings.py), never here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from skill_be.errors import ConfigError

if TYPE_CHECKING:
    from skill_be.project.places import Places


class Where:
    """A place in a file: `skill-be.yaml` + `checks.coverage`. Immutable.

    With `places` (the file's key positions), an error also names the line and column of the key
    path `loc`: `skill-be.yaml:7:3: checks.coverage: ...`.
    """

    __slots__ = ("file", "loc", "path", "places")

    def __init__(
        self, file: str, path: str = "", loc: tuple[str | int, ...] = (), places: Places | None = None
    ) -> None:
        self.file = file
        self.path = path
        self.loc = loc
        self.places = places

    def __repr__(self) -> str:
        return f"Where({self.file!r}, {self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Where) and (self.file, self.path) == (other.file, other.path)

    def __hash__(self) -> int:
        return hash((self.file, self.path))

    def key(self, name: str) -> Where:
        return Where(self.file, f"{self.path}.{name}" if self.path else name, (*self.loc, name), self.places)

    def index(self, i: int, label: str = "") -> Where:
        return Where(self.file, f"{self.path}[{i}]{label}", (*self.loc, i), self.places)

    def shown(self) -> str:
        """The place as messages give it: `skill-be.yaml:7:3: checks.coverage` (line and column when known)."""
        place = self.places.find(self.loc) if self.places is not None else None
        file = f"{self.file}:{place[0]}:{place[1]}" if place else self.file
        return f"{file}: {self.path}" if self.path else file

    def error(self, what: str) -> ConfigError:
        return ConfigError(f"{self.shown()}: {what}")


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    import difflib  # only a mistake needs it: a valid config starts faster without it

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""
