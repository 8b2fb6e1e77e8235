"""Characters a parsed JSON or YAML file may not hold: a lone surrogate escape (`"\\ud800"`, which no
file, terminal or hash can encode) and the NUL character (which no path, argument or environment
variable can carry). Found after parsing, in any key or value; one line with its place."""

from __future__ import annotations

import re

from skill_be.errors import ConfigError

_BAD = re.compile("[\x00\ud800-\udfff]")


def refuse_bad_characters(data: object, text: str, name: str, kind: str, first_line: int = 1) -> None:
    """A ConfigError `name:L:C: path: <what>; <fix>` for the first bad character in `data`."""
    found = _first(data, ())
    if found is None:
        return
    path, is_key, char = found
    from skill_be.project.places import Places
    from skill_be.project.validation import at_place, path_text

    place = Places(text, kind, first_line).find(path, key=is_key)
    shown = [escaped(p) if isinstance(p, str) else p for p in path]
    where = path_text(shown) or "the top level"
    if char == "\x00":
        what = r"the NUL character (\u0000) is not allowed in a key or value; remove it"
    else:
        what = (
            f"a lone surrogate escape (\\u{ord(char):04x}) is not a character; remove it, or write the character "
            "itself (or both halves of its surrogate pair)"
        )
    key = " (a key)" if is_key else ""
    raise ConfigError(f"{at_place(name, place)}: {where}{key}: {what}")


def escaped(text: str) -> str:
    """`text` with each bad character written as its escape, so that the line can be printed."""
    return _BAD.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _first(value: object, path: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], bool, str] | None:
    """The path of the first string holding a bad character, whether it is a key, and the character."""
    stack: list[tuple[object, tuple[str | int, ...]]] = [(value, path)]
    seen: set[int] = set()  # YAML's anchors can make a list that contains itself
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict | list):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, str):
            m = _BAD.search(item)
            if m:
                return at, False, m.group(0)
        elif isinstance(item, dict):
            for k in item:
                if isinstance(k, str) and (m := _BAD.search(k)):
                    return (*at, k), True, m.group(0)
            stack.extend((v, (*at, k if isinstance(k, str | int) else str(k))) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, (*at, i)) for i, v in reversed(list(enumerate(item))))
    return None
