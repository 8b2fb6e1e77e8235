"""The one definition of a run's summary.json (written by `reports/summary.py`). Readers (`triage`,
the action) go through it, so a hand-edited, truncated or older file is one line, never a traceback.
Keys beyond these are allowed: new ones arrive with new features (intervals, costs, cache counts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from skill_be.project.fields import AnyText, AnyTextList, Count, Flag, Integer, ListOf, MapOf, Number, Record, Text
from skill_be.results.trigger_models import TriggersModel


class LineSummary(Record):
    line: Text
    kind: Literal["criterion", "test"]
    baseline: Integer = Field(description="percent of reps that passed without the skill")
    with_skill: Integer = Field(alias="withSkill", description="percent with the skill")
    delta: Integer


class ModelSummary(Record):
    lines: ListOf(LineSummary, "lines")  # type: ignore[valid-type]
    outputs: ListOf(MapOf(Any), "outputs")  # type: ignore[valid-type]


class ScenarioSummary(Record):
    id: Text
    critical: Flag
    prompt: AnyText
    criteria: AnyTextList
    tests: AnyTextList
    models: MapOf(ModelSummary)  # type: ignore[valid-type]


class ZeroBlock(Record):
    scenario: Text
    line: Text


class RegressionBlock(Record):
    scenario: Text
    model: Text
    line: Text
    baseline: Integer
    with_skill: Integer = Field(alias="withSkill")


class GateSummary(Record):
    zero: ListOf(ZeroBlock, "blocks")  # type: ignore[valid-type]
    regressions: ListOf(RegressionBlock, "blocks")  # type: ignore[valid-type]
    errors: Count


class SkillSummary(Record):
    ready: Flag
    reasons: AnyTextList
    errors: Count
    seconds: Number
    fingerprint: Text
    graded: Flag
    gate: GateSummary
    scenarios: ListOf(ScenarioSummary, "scenarios")  # type: ignore[valid-type]
    triggers: TriggersModel | None = None  # trigger evals (results/triggers.py)


class CheckSummary(Record):
    name: Text
    lines: AnyTextList
    blocks: Flag
    problems: ListOf(MapOf(Any), "problems")  # type: ignore[valid-type]


class SummaryModel(Record):
    """A run's summary.json. Keys beyond these (run settings, intervals, costs) are allowed."""

    model_config = ConfigDict(title="skill-be summary.json")

    schema_version: Integer = Field(alias="schema")
    skill_be_version: Text = Field(alias="skillBeVersion")
    skills: MapOf(SkillSummary)  # type: ignore[valid-type]
    checks: ListOf(CheckSummary, "checks") | None = None  # type: ignore[valid-type]
