"""The one definition of a partial run's `shard.json` (results/shards.py writes and reads it): which
shard of which plan it is, and every output in full, so `merge` can grade and gate as one run would.
Written compact, keys in the fields' order."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ConfigDict, Field

from skill_be.project.fields import AnyText, AnyTextList, Flag, Integer, ListOf, MapOf, Text
from skill_be.results.summary_models import TestsSummary, UsageSummary
from skill_be.results.written import Meta, Real, Written


class GradingRecord(Written):
    k: Integer
    verdicts: list[bool] | None = None
    error: AnyText | None = None
    replies: AnyTextList = Field(default_factory=list)
    attempt_errors: AnyTextList = Field(default_factory=list, alias="attemptErrors")
    seconds: Real = 0
    usage: UsageSummary | None = None
    # grader.evidence (engine/observations.py Grading): left out when no quotes were asked
    said: list[bool] | None = None
    quotes: list[AnyText | None] | None = None
    found: list[bool] | None = None
    judge: AnyText = ""


class OutputRecord(Written):
    """One output in full: the answer's text and every grading reply (redacted as the run folder is)."""

    scenario: Text
    model: Text
    rep: Integer
    arm: Text
    prompt_chars: Integer = Field(alias="promptChars")
    text: AnyText | None
    error: AnyText | None
    seconds: Real
    usage: UsageSummary | None
    meta: Meta | None
    gradings: ListOf(GradingRecord, "gradings")  # type: ignore[valid-type]
    verdicts: list[bool] | None
    tests: TestsSummary | None
    notes: AnyTextList
    errors: AnyTextList
    agent: Meta | None = None  # agent scenarios: the run's record (engine/agent.py)


class ShardSkill(Written):
    seconds: Real
    tests: MapOf(AnyTextList)  # type: ignore[valid-type]
    outputs: ListOf(OutputRecord, "outputs")  # type: ignore[valid-type]


class ShardManifest(Written):
    """shard.json."""

    model_config = ConfigDict(title="skill-be shard.json")

    format: Integer
    index: Integer
    of: Integer
    plan: Text
    skill_names: AnyTextList = Field(default_factory=list, alias="skillNames")
    complete: Flag
    skills: MapOf(ShardSkill)  # type: ignore[valid-type]

    @classmethod
    def of_doc(cls, doc: dict[str, Any]) -> ShardManifest:
        return cls.model_validate(doc)

    def to_json(self) -> str:
        doc = self.model_dump(by_alias=True, exclude_unset=True, mode="json")
        return json.dumps(doc, ensure_ascii=False) + "\n"
