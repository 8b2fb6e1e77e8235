"""Validation with a location: every problem names the file, the key path and what to do."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


def mapping(value: object, where: Where, allowed: Iterable[str] | None = None) -> Mapping[str, object]:
    """`value` as a mapping with string keys; with `allowed`, an unknown key is an error."""
    if not isinstance(value, dict):
        raise where.error(f"must be a mapping of keys to values, not {type_name(value)}")
    for k in value:
        if not isinstance(k, str):
            raise where.error(f"key {k!r} must be a string")
    if allowed is not None:
        known = list(allowed)
        for k in value:
            if k not in known:
                hint = did_you_mean(k, known) or f"; the keys here are: {', '.join(known)}"
                raise where.error(f'unknown key "{k}"{hint}')
    return value


def string(value: object, where: Where, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise where.error(f"must be a string, not {type_name(value)}")
    if not empty and not value.strip():
        raise where.error("must not be empty")
    return value


def boolean(value: object, where: Where) -> bool:
    if not isinstance(value, bool):
        raise where.error(f"must be true or false, not {type_name(value)}")
    return value


def positive_int(value: object, where: Where, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        shown = f"{value!r}" if isinstance(value, int | float) and not isinstance(value, bool) else type_name(value)
        raise where.error(f"must be a positive integer, not {shown}")
    if maximum is not None and value > maximum:
        raise where.error(f"must be at most {maximum}, not {value}")
    return value


def positive_number(value: object, where: Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise where.error(f"must be a positive number, not {value!r}")
    return float(value)


def string_list(value: object, where: Where, *, non_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise where.error(f"must be a list of strings, not {type_name(value)}")
    if non_empty and not value:
        raise where.error("must be a non-empty list of strings")
    return tuple(string(item, where.index(i)) for i, item in enumerate(value))


def string_map(value: object, where: Where) -> dict[str, str]:
    m = mapping(value, where)
    return {k: string(v, where.key(k)) for k, v in m.items()}
