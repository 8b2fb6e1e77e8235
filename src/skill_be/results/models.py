"""The one definition of the result file (`skill-be.result.json`). Readers go through this model, so
a hand-edited or older file is one line naming the key, never a traceback; the writer
(`results/result_file.result_text`) gives each mapping's keys in the order of the fields here and keeps
numbers as given, so a file read and written again keeps its bytes (tests/unit/results/test_result_bytes.py
holds the fixtures to this model's dump)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, WithJsonSchema

from skill_be.project.fields import (
    AnyText,
    Count,
    Flag,
    ListOf,
    MapOf,
    Record,
    Text,
    TextList,
)
from skill_be.results.trigger_models import TriggersModel
from skill_be.results.written import Real

# A number of 0 or more (tokens, USD), kept as written: `120` stays `120`, not `120.0`.
Amount = Annotated[Real, Field(ge=0), WithJsonSchema({"minimum": 0, "type": "number"})]

# --- skill-be.result.json --------------------------------------------------------------------------


class Known(Record):
    """A part of the result file this version writes: another key is a hand edit, most likely a typo
    (`unknown key "x" (did you mean ...)`). A file a later skill-be or the Node tool wrote is read with
    the validation context `lenient`, which drops the keys this version does not know."""

    model_config = ConfigDict(extra="forbid")


class ArmCount(Known):
    passed: Count = Field(description="reps whose verdict on the line passed")
    total: Count = Field(description="reps counted")


class ScoreModel(Known):
    """One line's pass counts on one model: what the action and later tools read."""

    model: Text = Field(description="the model's label")
    scenario: Text
    line: Text = Field(description="the criterion, or [test] <name>")
    kind: Literal["criterion", "test"]
    critical: Flag
    baseline: ArmCount
    with_skill: ArmCount = Field(alias="withSkill")


class ArmUsage(Known):
    answers: Count = Field(description="the arm's answers counted (failed calls left out)")
    input_tokens: Amount = Field(alias="inputTokens", description="mean input tokens of one answer")
    output_tokens: Amount = Field(alias="outputTokens", description="mean output tokens of one answer")
    cost_usd: Amount | None = Field(
        None, alias="costUsd", description="mean cost of one answer in USD, when the config prices the models"
    )
    cache_read_tokens: Amount | None = Field(
        None, alias="cacheReadTokens", description="of inputTokens: the mean read from the provider's prompt cache"
    )
    cache_write_tokens: Amount | None = Field(
        None, alias="cacheWriteTokens", description="of inputTokens: the mean written to the provider's prompt cache"
    )


class UsageModel(Known):
    """What one answer costs in each arm, over every model under test."""

    baseline: ArmUsage
    with_skill: ArmUsage = Field(alias="withSkill")
    estimated: Flag = Field(description="some counts are estimated from characters (the adapter reported none)")


class ReasonRecord(Known):
    """One blocking reason as data (engine/reasons.py `Reason`): what readers decide from, beside its words."""

    kind: Literal[
        "errors",
        "zero",
        "regression",
        "inconclusive",
        "not-graded",
        "triggers",
        "min-delta",
        "previous",
        "model",
        "pairwise",
        "fake-run",
    ]
    source: Text = Field(description="the config key (or part) that decided it: gate.minDelta, gate.previous, ...")
    scenario: AnyText | None = None
    model: AnyText | None = None
    line: AnyText | None = Field(None, description="the criterion, or [test] <name>")


class ResultEntryModel(Known):
    date: Text = Field(description="the day of the skill's last run, YYYY-MM-DD")
    fingerprint: Text = Field(description="SHA-256 over the skill's SKILL.md, eval file, config (and tests)")
    ready: Flag = Field(description="the verdict of that run")
    reasons: TextList = Field(description="why the gate blocked it (empty when it passed)")
    models: TextList = Field(description="the labels of the models under test")
    grader: AnyText
    why: ListOf(ReasonRecord, "why") | None = Field(  # type: ignore[valid-type]
        None, description="the same reasons as data, one per entry of reasons, in its order (skill-be)"
    )
    scores: ListOf(ScoreModel, "scores") | None = Field(  # type: ignore[valid-type]
        None, description="each line's pass counts per model and arm (skill-be; absent in the Node tool's files)"
    )
    gate: MapOf(Any) | None = Field(  # type: ignore[valid-type]
        None, description="the rule and error levels that decided (engine.gate.Levels)"
    )
    triggers: TriggersModel | None = Field(None, description="trigger evals' scores and checks")
    reps: Count | None = Field(None, description="the reps per arm the run made")
    inputs: MapOf(Text) | None = Field(  # type: ignore[valid-type]
        None, description="each part of a v2 fingerprint and its hash, for verify to name what changed"
    )
    usage: UsageModel | None = Field(
        None, description="tokens and cost of one answer per arm, for the comparison with the base"
    )


class ResultFileModel(Known):
    """skill-be.result.json."""

    model_config = ConfigDict(title="skill-be result file")

    skill_be_version: Text = Field(alias="skillBeVersion")
    skills: MapOf(ResultEntryModel)  # type: ignore[valid-type]
