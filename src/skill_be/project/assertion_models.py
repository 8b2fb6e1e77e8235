"""Deterministic assertions and budgets of a scenario: graded without a model, free.

An assertion is one line of the report, like a criterion, with a pass rate per arm; so is each budget
limit. The models here are the eval file's keys (`assertions`, `budget`); `engine/assertions.py`
grades them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from skill_be.project.fields import Flag, PositiveInt, PositiveNumber, Strict, Text, choice, fail

KINDS = ("contains", "not_contains", "regex", "equals", "json-schema", "max-length")
TARGETS = ("answer", "code")


class AssertionModel(Strict):
    """`{"type": "contains", "value": "Resolved"}`: one deterministic check of an answer."""

    # A regex and a JSON Schema value are checked by the model alone: the fast path (fastcheck.py)
    # stops at this keyword it does not know.
    model_config = ConfigDict(json_schema_extra={"x-checkedByModel": "regex and json-schema values"})

    type: choice(KINDS, "assertion type") = Field(  # type: ignore[valid-type]
        description="contains, not_contains, regex, equals, json-schema or max-length"
    )
    value: Any = Field(
        description="the text (contains, not_contains, equals), the pattern (regex), the schema object "
        "(json-schema) or the number of characters (max-length)"
    )
    name: Text | None = Field(None, description="the line's name in the report (default: built from type and value)")
    in_: choice(TARGETS, "target") = Field(  # type: ignore[valid-type]
        "answer", alias="in", description="answer: the whole answer; code: its first fenced code block"
    )
    ignore_case: Flag = Field(False, alias="ignoreCase", description="contains, not_contains, equals, regex")

    @model_validator(mode="after")
    def _fits_its_type(self) -> AssertionModel:
        kind, value = self.type, self.value
        if kind in ("contains", "not_contains", "equals") and (not isinstance(value, str) or not value):
            fail(f"{kind} needs a non-empty string value", at=("value",))
        if kind == "regex":
            if not isinstance(value, str) or not value:
                fail("regex needs a pattern string", at=("value",))
            try:
                re.compile(value)
            except re.error as e:
                fail(f"is not a valid regular expression ({e}); fix the pattern", at=("value",))
        if kind == "max-length" and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            fail("max-length needs a positive whole number of characters", at=("value",))
        if kind == "json-schema":
            _check_schema(value)
        return self

    def label(self) -> str:
        """The report line: the name, or `[assert] contains "Resolved"`."""
        if self.name:
            return f"[assert] {self.name}"
        if self.type == "json-schema":
            return "[assert] json-schema" + (" (code)" if self.in_ == "code" else "")
        shown = self.value if isinstance(self.value, int) else f'"{self.value}"'
        return f"[assert] {self.type} {shown}" + (" (code)" if self.in_ == "code" else "")


def _check_schema(value: object) -> None:
    if not isinstance(value, dict):
        fail("json-schema needs a JSON Schema object as its value", at=("value",))
    import jsonschema

    try:
        jsonschema.validators.validator_for(value).check_schema(value)
    except jsonschema.SchemaError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "the top"
        fail(f"is not a valid JSON Schema at {where}: {e.message}", at=("value",))


class BudgetModel(Strict):
    """Limits an answer must stay within; each set limit is a line of the report."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    max_tokens: PositiveInt() | None = Field(  # type: ignore[valid-type]
        None, alias="maxTokens", description="input plus output tokens of the generation"
    )
    max_cost_usd: PositiveNumber | None = Field(
        None, alias="maxCostUsd", description="the generation's cost in USD (needs the config's pricing)"
    )
    max_seconds: PositiveNumber | None = Field(None, alias="maxSeconds", description="the generation's wall time")
    max_turns: PositiveInt() | None = Field(  # type: ignore[valid-type]
        None, alias="maxTurns", description="agent scenarios: the agent's turns"
    )

    @model_validator(mode="after")
    def _something(self) -> BudgetModel:
        if not any((self.max_tokens, self.max_cost_usd, self.max_seconds, self.max_turns)):
            fail("sets no limit; give maxTokens, maxCostUsd, maxSeconds or maxTurns, or remove it")
        return self


BudgetKey = Literal["maxTokens", "maxCostUsd", "maxSeconds", "maxTurns"]
