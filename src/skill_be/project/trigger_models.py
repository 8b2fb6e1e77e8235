"""Trigger evals as the user writes them: the eval file's `triggers:` (should, shouldNot, near misses)
and `gate.trigger`, as pydantic models that join the file models in project/models.py (and so the
published schemas). The records they become are in project/triggers.py."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator, model_validator

from skill_be.project.fields import Flag, Strict, Text, fail
from skill_be.project.where import type_name


class TriggerQueryModel(Strict):
    """A query written as an object: its prompt, and `near: true` for a near miss."""

    not_a_mapping = 'must be a string or an object with "prompt" (and "near": true for a near miss)'

    prompt: Text = Field(description="the user's message")
    near: Flag = Field(False, description="a near miss: on-topic, but not for this skill (shouldNot only)")


def _query(value: object) -> object:
    if isinstance(value, str) and not value.strip():
        fail("is empty; write the user's message, or remove the entry")
    return value


Query = Annotated[
    Annotated[Text, Tag("<text>")] | Annotated[TriggerQueryModel, Tag("<object>")],
    Discriminator(lambda v: "<text>" if isinstance(v, str) else "<object>"),
    BeforeValidator(_query),
]


def _queries(value: object) -> object:
    if not isinstance(value, list):
        fail(f"must be a list of queries (strings, or objects with prompt), not {type_name(value)}")
    return value


QueryList = Annotated[list[Query], BeforeValidator(_queries)]


# A should query never carries `near: true` (the model says so in words; the schema refuses it).
_SHOULD_ITEM: dict[str, Any] = {
    "oneOf": [
        {"type": "string", "minLength": 1, "pattern": r"\S"},
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["prompt"],
            "properties": {"prompt": {"type": "string", "minLength": 1, "pattern": r"\S"}, "near": {"const": False}},
        },
    ]
}


class TriggersModel(Strict):
    """`triggers:` of an eval file: queries on which the skill should and should not be loaded."""

    should: QueryList | None = Field(
        None,
        description="user messages on which this skill should be loaded",
        json_schema_extra={"items": _SHOULD_ITEM},
    )
    should_not: QueryList | None = Field(
        None, alias="shouldNot", description="user messages on which it should not be (near: true for near misses)"
    )

    @field_validator("should")
    @classmethod
    def _no_near_in_should(cls, value: list[Any] | None) -> list[Any] | None:
        for i, q in enumerate(value or ()):
            if isinstance(q, TriggerQueryModel) and q.near:
                fail('"near: true" marks a query the skill should NOT load on; move it to shouldNot', at=(i, "near"))
        return value

    @model_validator(mode="after")
    def _some(self) -> TriggersModel:
        if not self.should and not self.should_not:
            fail("needs should or shouldNot queries (a non-empty list); remove triggers if there are none")
        return self


class TriggerGateModel(Strict):
    """`gate.trigger`: the least recall and the most false triggers a skill may show."""

    min_recall: Annotated[float, Field(ge=0, le=100)] | None = Field(
        None, alias="minRecall", description="percent of should queries the skill must be loaded on"
    )
    max_false_trigger: Annotated[float, Field(ge=0, le=100)] | None = Field(
        None, alias="maxFalseTrigger", description="percent of shouldNot queries it may be loaded on"
    )

    @field_validator("min_recall", "max_false_trigger", mode="before")
    @classmethod
    def _percent(cls, value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            fail(f"must be a percentage from 0 to 100, not {type_name(value)}")
        if not 0 <= value <= 100:
            fail(f"must be a percentage from 0 to 100, not {value:g}")
        return float(value)
