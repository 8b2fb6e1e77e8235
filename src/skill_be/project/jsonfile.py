"""JSON loading for the user's files: a syntax error or a key written twice is one line with its place."""

from __future__ import annotations

import json

from skill_be.errors import ConfigError


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def load_json(text: str, name: str, fix: str = "fix the syntax there") -> object:
    """Parse JSON; `name: line L, column C: invalid JSON (...); <fix>` when it is not valid."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}: line {e.lineno}, column {e.colno}: invalid JSON ({e.msg}); {fix}") from None
    except _Duplicate as e:
        raise ConfigError(f'{name}: key "{e.key}" is written twice in one object; keep one of them') from None
    except RecursionError:
        raise ConfigError(f"{name}: invalid JSON (nested too deeply); {fix}") from None
