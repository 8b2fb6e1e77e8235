"""The one definition of the files `run` writes and other commands read: the result file
(`skill-be.result.json`) and a run's `summary.json`. Readers go through these models, so a
hand-edited or older file is one line naming the key, never a traceback."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from skill_be.project.fields import (
    AnyText,
    AnyTextList,
    Count,
    Flag,
    Integer,
    ListOf,
    MapOf,
    Number,
    Record,
    Text,
    TextList,
)

# --- skill-be.result.json --------------------------------------------------------------------------


class ArmCount(Record):
    passed: Count = Field(description="reps whose verdict on the line passed")
    total: Count = Field(description="reps counted")


class ScoreModel(Record):
    """One line's pass counts on one model: what the action and later tools read."""

    model: Text = Field(description="the model's label")
    scenario: Text
    line: Text = Field(description="the criterion, or [test] <name>")
    kind: Literal["criterion", "test"]
    critical: Flag
    baseline: ArmCount
    with_skill: ArmCount = Field(alias="withSkill")


class ResultEntryModel(Record):
    date: Text = Field(description="the day of the skill's last run, YYYY-MM-DD")
    fingerprint: Text = Field(description="SHA-256 over the skill's SKILL.md, eval file, config (and tests)")
    ready: Flag = Field(description="the verdict of that run")
    reasons: TextList = Field(description="why it was NOT READY")
    models: TextList = Field(description="the labels of the models under test")
    grader: AnyText
    scores: ListOf(ScoreModel, "scores") | None = Field(  # type: ignore[valid-type]
        None, description="each line's pass counts per model and arm (skill-be; absent in the Node tool's files)"
    )


class ResultFileModel(Record):
    """skill-be.result.json."""

    model_config = ConfigDict(title="skill-be result file")

    skill_be_version: Text = Field(alias="skillBeVersion")
    skills: MapOf(ResultEntryModel)  # type: ignore[valid-type]


# --- summary.json ----------------------------------------------------------------------------------


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
