"""The judge's own noise: with two gradings or more of one answer, how often they disagree. Per
criterion line, the share of answers whose gradings split (a line over `grader.maxSplitShare` is
flagged: the criterion wants sharpening), and over the whole skill the share of graded criteria on
which every grading agreed. Data in, data out; reports/judge.py words it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill_be.engine.gate import ScenarioLines
from skill_be.engine.observations import Grading, Output


@dataclass(frozen=True)
class SplitLine:
    """One criterion of one scenario on one model: on how many of its answers the gradings split."""

    scenario: str
    model: str
    line: str
    split: int
    answers: int  # answers with two successful gradings or more
    flagged: bool  # split on more than the set share of answers
    judges_apart: int = 0  # `grader` as a list: answers on which the judges' majorities differ
    judged: int = 0  # answers graded by two judges or more

    @property
    def share(self) -> float:
        return self.split / self.answers if self.answers else 0.0


@dataclass(frozen=True)
class JudgeNoise:
    lines: tuple[SplitLine, ...]
    agreed: int  # graded criteria (answer x criterion) on which every grading agreed
    graded: int  # graded criteria with two gradings or more
    threshold: float  # grader.maxSplitShare

    @property
    def agreement(self) -> float:
        return self.agreed / self.graded if self.graded else 1.0

    @property
    def flagged(self) -> tuple[SplitLine, ...]:
        return tuple(x for x in self.lines if x.flagged)


def _apart(outputs: Sequence[Output], i: int) -> tuple[int, int]:
    """On how many answers graded by two judges or more their majorities on criterion `i` differ."""
    apart = judged = 0
    for o in outputs:
        by_judge: dict[str, list[bool]] = {}
        for g in o.gradings:
            v = _said(g)
            if g.judge and v is not None and i < len(v):
                by_judge.setdefault(g.judge, []).append(v[i])
        if len(by_judge) < 2:
            continue
        judged += 1
        apart += len({sum(vs) * 2 > len(vs) for vs in by_judge.values()}) > 1
    return apart, judged


def _said(g: Grading) -> list[bool] | None:
    """What the judge itself said (before grader.evidence: required turned a YES into NO)."""
    return g.said if g.said is not None else g.verdicts


def judge_noise(lines: Sequence[ScenarioLines], outputs: Sequence[Output], threshold: float) -> JudgeNoise | None:
    """None when no answer has two successful gradings (gradings: 1, or no criteria)."""
    found: list[SplitLine] = []
    agreed = graded = 0
    for sl in lines:
        criteria = sl.scenario.criteria
        mine = [o for o in outputs if o.scenario == sl.scenario.id]
        for model in dict.fromkeys(o.model for o in mine):
            theirs = [o for o in mine if o.model == model]
            votes = [[v for g in o.gradings if (v := _said(g)) is not None] for o in theirs]
            votes = [v for v in votes if len(v) >= 2 and all(len(x) == len(criteria) for x in v)]
            if not votes:
                continue
            for i, line in enumerate(criteria):
                split = sum(1 for v in votes if len({x[i] for x in v}) > 1)
                agreed += len(votes) - split
                graded += len(votes)
                flagged = split > threshold * len(votes)
                found.append(SplitLine(sl.scenario.id, model, line, split, len(votes), flagged, *_apart(theirs, i)))
    return JudgeNoise(tuple(found), agreed, graded, threshold) if graded else None
