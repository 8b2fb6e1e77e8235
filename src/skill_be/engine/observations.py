"""What happened to each output: data, never exceptions. An error is a value with its reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from skill_be.adapters.base import Usage


class TestResultLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def message(self) -> str | None: ...


class TestRun(Protocol):
    """What the code-test session returns for one answer (codetests.session.TestRun)."""

    @property
    def results(self) -> Sequence[TestResultLike]: ...
    @property
    def error(self) -> str | None: ...
    def to_json(self) -> Mapping[str, object]: ...


@dataclass
class Grading:
    k: int  # 1-based, over every judge's gradings
    verdicts: list[bool] | None = None
    error: str | None = None  # set when the grading failed after its retry
    replies: list[str] = field(default_factory=list)  # every raw reply, attempt by attempt
    attempt_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    usage: Usage | None = None
    # grader.evidence: per criterion, the judge's own verdict, its quote, and whether the quote is in
    # what the judge was shown (engine/verdicts.py); `verdicts` is what they count as.
    said: list[bool] | None = None
    quotes: list[str | None] | None = None
    found: list[bool] | None = None
    judge: str = ""  # `grader` as a list: the label of the judge that graded it ("" with one judge)


@dataclass
class Output:
    """One generation of one arm, its gradings and its code tests."""

    scenario: str
    model: str  # the model's label
    rep: int  # 1-based
    arm: str  # baseline | with-skill
    prompt_chars: int = 0
    text: str | None = None
    error: str | None = None  # the generation failed
    seconds: float = 0.0
    usage: Usage | None = None
    meta: dict[str, object] = field(default_factory=dict)
    gradings: list[Grading] = field(default_factory=list)
    verdicts: list[bool] = field(default_factory=list)  # per criterion, after the majority
    tests: TestRun | None = None
    notes: list[str] = field(default_factory=list)  # [NOTE] lines
    errors: list[str] = field(default_factory=list)  # [ERROR] lines: each counts for gate.blockOnErrors
    agent: dict[str, object] | None = None  # agent scenarios: transcript, diff, changed files (engine/agent.py)

    def passes(self, n_criteria: int, test_names: tuple[str, ...]) -> list[bool]:
        """Every scored line of the scenario, criteria first, then tests; anything missing counts as 0."""
        crit = self.verdicts if len(self.verdicts) == n_criteria else [False] * n_criteria
        by_name = {r.name: r.passed for r in self.tests.results} if self.tests and not self.tests.error else {}
        return [*crit, *(by_name.get(name, False) for name in test_names)]
