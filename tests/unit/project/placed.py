"""Error lines with and without their place: the unit tests compare the words; the bad-input corpus
(tests/corpus/bad_input) pins the exact line and column."""

from __future__ import annotations

import re

_PLACE = re.compile(r"^([^\s:]+):\d+(?::\d+)?: ")


def place_of(message: str) -> tuple[int, ...]:
    """(line, column) or (line,) of an error line; () when it names no place."""
    m = re.match(r"^[^\s:]+:(\d+)(?::(\d+))?: ", message)
    if not m:
        return ()
    return tuple(int(g) for g in m.groups() if g is not None)


def unplaced(message: str) -> str:
    """The error line without `:line:column` after the file name."""
    return _PLACE.sub(r"\1: ", message)
