"""A file's data through its model: the first problem becomes one line with the file, the line and
column, the key path and the fix, `skill-be.yaml:7:3: checks.coverage: unknown key "bloking" (did you
mean "blocking"?)`. Never a pydantic dump."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from skill_be.errors import ConfigError
from skill_be.project.places import Places

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")
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
) -> dict[str, Any]:
    """The file's data once it is valid, keys as written, optional keys left out when absent or null.

    Data that conforms to the format's published schema is valid as it is (the fast path, no
    pydantic); anything else goes through the model (`model()` imports it), for its one-line error,
    or for the value the model accepts where the schema is stricter."""
    from skill_be.project.fastcheck import conforms

    if conforms(fmt, data):
        assert isinstance(data, dict)
        return data
    valid = validate(model(), data, name, places, label, lenient)
    dumped: dict[str, Any] = valid.model_dump(by_alias=True, exclude_unset=True)
    return dumped


def validate(
    model: type[M], data: object, name: str, places: Places, label: Label | None = None, lenient: bool = False
) -> M:
    """The model of the file's data, or its first error as one line; `lenient`: keys the models do not
    know are dropped instead of refused (a file a later version wrote)."""
    from pydantic import ValidationError

    from skill_be.project.fields import LENIENT

    try:
        return model.model_validate(data, context={LENIENT: lenient})
    except ValidationError as e:
        raise ConfigError(render(e.errors(include_url=False)[0], name, places, label)) from None


def render(error: Any, name: str, places: Places, label: Label | None = None) -> str:
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
    return f"{at_place(name, place)}: {path}: {what}" if path else f"{at_place(name, place)}: {what}"
