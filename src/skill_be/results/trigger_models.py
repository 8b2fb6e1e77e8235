"""The `triggers` section of a skill in summary.json and in the result file, as models (part of the
published schemas); results/triggers.py writes it."""

from __future__ import annotations

from pydantic import Field

from skill_be.project.fields import AnyText, Count, Flag, ListOf, MapOf, Text
from skill_be.results.written import Real, Written


class TriggerRateModel(Written):
    hits: Count
    total: Count
    percent: Real = Field(description="hits / total, in percent (0 when total is 0)")
    low: Real = Field(description="the 95% Wilson interval's low end, in percent")
    high: Real


class TriggerModelModel(Written):
    recall: TriggerRateModel = Field(description="loaded on should queries")
    false_trigger: TriggerRateModel = Field(alias="falseTrigger", description="loaded on shouldNot queries")
    near_miss: TriggerRateModel = Field(alias="nearMiss", description="loaded on near misses")
    errors: Count
    confusion: MapOf(MapOf(Count)) = Field(  # type: ignore[valid-type]
        description="query kind -> the skill loaded (or (none)) -> calls"
    )


class TriggerCheckModel(Written):
    model: Text
    key: Text = Field(description="minRecall | maxFalseTrigger")
    threshold: Real
    outcome: Text = Field(description="pass | block | inconclusive")
    rate: TriggerRateModel
    reps: Count = Field(description="inconclusive: reps per query that would decide it")


class TriggerCallModel(Written):
    id: Text
    kind: Text
    query: AnyText
    model: Text
    rep: Count
    loaded: Text | None = Field(description="the skill the call loaded; null: none (or the call failed)")
    error: AnyText | None = Field(description="why the call failed; null when it answered")
    seconds: Real


class TriggersModel(Written):
    """A skill's trigger evals: scores per model, the gate's checks, and (summary.json) every call."""

    ready: Flag
    rule: Text
    reps: Count
    offered: ListOf(Text, "skill names")  # type: ignore[valid-type]
    models: MapOf(TriggerModelModel)  # type: ignore[valid-type]
    checks: ListOf(TriggerCheckModel, "checks")  # type: ignore[valid-type]
    calls: ListOf(TriggerCallModel, "calls") | None = None  # type: ignore[valid-type]
