"""JSON loading for the user's files: a syntax error or a key written twice is one line with its place."""

from __future__ import annotations

import json

from skill_be.errors import ConfigError
from skill_be.project.characters import refuse_bad_characters


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
    """Parse JSON; `name:L:C: invalid JSON (...); <fix>` when it is not valid, or when a key or value holds
    a character no file or path can carry (project/characters.py)."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}:{e.lineno}:{e.colno}: invalid JSON ({e.msg}); {fix}") from None
    except _Duplicate as e:
        at = _second(text, e.key)
        raise ConfigError(f'{name}{at}: key "{e.key}" is written twice in one object; keep one of them') from None
    except RecursionError:
        raise ConfigError(f"{name}: invalid JSON (nested too deeply); {fix}") from None
    refuse_bad_characters(data, text, name, "json")
    return data


def _second(text: str, key: str) -> str:
    """`:L:C` of the second place `"key":` is written (a good guess at the duplicate), or nothing."""
    import re

    found = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
    if len(found) < 2:
        return ""
    pos = found[1]
    line = text.count("\n", 0, pos) + 1
    return f":{line}:{pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"
