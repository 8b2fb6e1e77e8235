"""The base of every part of a file skill-be writes and reads back byte for byte (summary.json and its
sections): unknown keys kept, nulls kept, numbers kept as written."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, ConfigDict

from skill_be.project.fields import MapOf, Record, fail
from skill_be.project.where import type_name


def _real(value: object) -> int | float:
    """A number kept as written (an int stays an int): the dump must give back the same bytes."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(f"must be a number, not {type_name(value)}")
    return value


Real = Annotated[int | float, BeforeValidator(_real)]
Meta = MapOf(Any)


class Written(Record):
    """A part of a file skill-be writes: unknown keys kept, nulls kept, the fields' order is the file's."""

    model_config = ConfigDict(extra="allow")
    keep_nulls: ClassVar[bool] = True
