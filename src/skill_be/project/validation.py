"""A file's data through its model: each problem becomes one line with the file, the line and column,
the key path and the fix, `skill-be.yaml:7:3: checks.coverage: unknown key "bloking" (did you mean
"blocking"?)`, every problem of one pass in file order, up to `MAX_SHOWN`. Never a pydantic dump."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from skill_be.errors import ConfigError
from skill_be.project.places import Places

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")
T = TypeVar("T")
# Renders a location as the user reads it; gets the location and the key the error points at.
Label = Callable[[Sequence[str | int], str | None], str]


def path_text(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def at_place(name: str, place: tuple[int, int] | None) -> str:
    """`file:line:col` (just `file` when the place is unknown): the one prefix of every file error."""
    return f"{name}:{place[0]}:{place[1]}" if place else name


def checked(
    fmt: str,
    model: Callable[[], type[BaseModel]],
    data: object,
    name: str,
    places: Places,
    label: Label | None = None,
    lenient: bool = False,
    many: bool = False,
) -> dict[str, Any]:
    """The file's data once it is valid, keys as written, optional keys left out when absent or null.

    Data that conforms to the format's published schema is valid as it is (the fast path, no
    pydantic); anything else goes through the model (`model()` imports it), for its one-line error,
    or for the value the model accepts where the schema is stricter."""
    from skill_be.project.fastcheck import conforms

    if conforms(fmt, data):
        assert isinstance(data, dict)
        return data
    valid = validate(model(), data, name, places, label, lenient, many)
    dumped: dict[str, Any] = valid.model_dump(by_alias=True, exclude_unset=True)
    return dumped


def validate(
    model: type[M],
    data: object,
    name: str,
    places: Places,
    label: Label | None = None,
    lenient: bool = False,
    many: bool = False,
) -> M:
    """The data through the model; a ConfigError at its first problem, or with `many` (the files a
    person writes: the config, an eval file) at every problem, a line each in file order. `lenient`:
    keys the models do not know are dropped instead of refused (a file a later version wrote)."""
    from pydantic import ValidationError

    from skill_be.project.fields import LENIENT

    try:
        return model.model_validate(data, context={LENIENT: lenient})
    except ValidationError as e:
        errors = e.errors(include_url=False)
        if not many:  # a file skill-be writes: one line, which the caller ends with its fix
            raise ConfigError(render(errors[0], name, places, label)) from None
        found = [line for error in errors for line in _lines(error, (), name, places, label)]
        raise Mistakes([text for _, text in sorted(found, key=_file_order)]) from None


MAX_SHOWN = 20  # the most mistakes one error lists; the rest are counted


class Mistakes(ConfigError):
    """The mistakes one pass found, a line each; the message shows up to MAX_SHOWN of them, `lines`
    keeps them all (so that the checks after the model can add theirs: `merged`)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(dict.fromkeys(lines))
        super().__init__(report(self.lines))


def merged(name: str, *parts: Sequence[str]) -> Mistakes:
    """The lines of several passes over file `name` as one error, in file order (a line without a
    place after those with one, each part's own order kept)."""
    import re

    at = re.compile(re.escape(name) + r":(\d+):(\d+): ")

    def order(line: str) -> tuple[int, int, int]:
        m = at.match(line)
        return (0, int(m[1]), int(m[2])) if m else (1, 0, 0)

    return Mistakes(sorted((line for part in parts for line in part), key=order))


def report(lines: Sequence[str]) -> str:
    """Several mistakes as one error's text: a line each, up to MAX_SHOWN, then how many more."""
    unique = list(dict.fromkeys(lines))
    shown = unique[:MAX_SHOWN]
    if len(unique) > MAX_SHOWN:
        rest = len(unique) - MAX_SHOWN
        shown.append(f"and {rest} more mistake{'s' if rest > 1 else ''}; fix these and run again to see them")
    return "\n".join(shown)


def collect(found: list[str], check: Callable[[], T]) -> T | None:
    """Run one check: its result, or None with its ConfigError's lines added to `found` (the
    checks after the model go on past a mistake, so that one run reports them all)."""
    try:
        return check()
    except ConfigError as e:
        found.extend(str(e).splitlines())
        return None


def raise_found(found: Sequence[str]) -> None:
    if found:
        raise Mistakes(found)


def _file_order(item: tuple[tuple[int, int] | None, str]) -> tuple[int, int, int]:
    place = item[0]
    return (0, *place) if place else (1, 0, 0)  # a line with no place (the whole file) after the placed ones


def _lines(
    error: Any, base: Sequence[str | int], name: str, places: Places, label: Label | None
) -> list[tuple[tuple[int, int] | None, str]]:
    """The error's line with its place, then those of the errors it carries (`more`: the other
    problems of a mapping, found below the error's own location)."""
    located = {**error, "loc": (*base, *error["loc"])}
    out = [_place_and_text(located, name, places, label)]
    for inner in (error.get("ctx") or {}).get("more") or ():
        out += _lines(inner, located["loc"], name, places, label)
    return out


def render(error: Any, name: str, places: Places, label: Label | None = None) -> str:
    return _place_and_text(error, name, places, label)[1]


def _place_and_text(
    error: Any, name: str, places: Places, label: Label | None = None
) -> tuple[tuple[int, int] | None, str]:
    ctx = error.get("ctx") or {}
    # A tagged union's tag ("<entry>", "<list>") is pydantic's step, not a key of the file.
    loc = [p for p in error["loc"] if not (isinstance(p, str) and p.startswith("<") and p.endswith(">"))]
    loc += list(ctx.get("at") or ())
    key = ctx.get("key")
    from skill_be.project.fields import ERROR_TYPE

    if error["type"] == ERROR_TYPE:
        what = str(ctx["message"])
    else:  # a check of pydantic's own, which the models should not leave to it
        msg = str(error["msg"])
        what = msg[:1].lower() + msg[1:]
    place = places.find([*loc, key], key=True) if key is not None else places.find(loc)
    path = label(loc, key) if label else path_text(loc)
    return place, (f"{at_place(name, place)}: {path}: {what}" if path else f"{at_place(name, place)}: {what}")
