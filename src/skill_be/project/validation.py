"""A file's data through its model: the first problem becomes one line with the file, the line and
column, the key path and the fix, `skill-be.yaml:7:3: checks.coverage: unknown key "bloking" (did you
mean "blocking"?)`. Never a pydantic dump."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from skill_be.errors import ConfigError
from skill_be.project.fields import ERROR_TYPE
from skill_be.project.places import Places

M = TypeVar("M", bound=BaseModel)
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


def validate(model: type[M], data: object, name: str, places: Places, label: Label | None = None) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ConfigError(render(e.errors(include_url=False)[0], name, places, label)) from None


def render(error: Any, name: str, places: Places, label: Label | None = None) -> str:
    ctx = error.get("ctx") or {}
    # A tagged union's tag ("<entry>", "<list>") is pydantic's step, not a key of the file.
    loc = [p for p in error["loc"] if not (isinstance(p, str) and p.startswith("<") and p.endswith(">"))]
    loc += list(ctx.get("at") or ())
    key = ctx.get("key")
    if error["type"] == ERROR_TYPE:
        what = str(ctx["message"])
    else:  # a check of pydantic's own, which the models should not leave to it
        msg = str(error["msg"])
        what = msg[:1].lower() + msg[1:]
    place = places.find([*loc, key], key=True) if key is not None else places.find(loc)
    path = label(loc, key) if label else path_text(loc)
    return f"{at_place(name, place)}: {path}: {what}" if path else f"{at_place(name, place)}: {what}"
