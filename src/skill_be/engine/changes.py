"""How a skill's scores changed between two versions, line by line: the plain values of every
comparison (`LineChange`, `SkillChange`, `Comparison`) and the one estimate of a skill's overall change
(`overall`), for the comparison with the base's committed result file (results/base.py) and with the
previous version's arm (results/previous.py), and for the gate rule that reads them (engine/gate.py
`rule_outcomes`).

Each skill's overall effect is the mean over its (scenario, model) pairs of the mean line delta. Its
interval treats the lines of one scenario as moving together (the variance of their mean is taken as
the square of the mean of their standard deviations, an upper bound), scenarios and models as
independent: it is wider than the run's bootstrap interval, never narrower.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from skill_be.engine.stats import REPS_CAP, Interval, line_variance, newcombe, reps_to_decide

Z95 = 1.959963984540054
COMPARED, NOT_COMPARABLE, NEW = "compared", "not comparable", "new"
# A skill's comparison as a whole.
SKILL_COMPARED, SKILL_NEW, SKILL_NO_SCORES, SKILL_NO_HEAD = "compared", "new skill", "no scores at base", "no scores"

Counts = tuple[int, int]  # passed, total


class LineChange(NamedTuple):
    """One line of one scenario on one model: this branch's with-skill score against the base's."""

    model: str
    scenario: str
    line: str
    critical: bool
    status: str  # compared | not comparable | new
    head: Counts  # with skill, this branch
    baseline: Counts  # without the skill, this branch
    base: Counts | None = None  # with skill, the base
    interval: Interval | None = None  # head - base, fractions
    reps_to_decide: int | None = None  # reps per arm at which the interval would leave 0
    why: str = ""  # not comparable: what changed
    kind: str = "criterion"  # criterion | test (engine/gate.py LineScore.kind): what the line measures

    @property
    def moved(self) -> bool:
        """Beyond its noise: the interval of the change leaves 0."""
        return self.interval is not None and not self.interval.contains(0.0)


class SkillChange(NamedTuple):
    name: str
    status: str  # SKILL_*
    lines: tuple[LineChange, ...] = ()
    vs_base: Interval | None = None  # the overall change against the base
    vs_baseline: Interval | None = None  # this branch's overall effect against no skill
    low_sample: bool = False
    base_ready: bool | None = None
    head_ready: bool | None = None
    base_triggers: Any = None  # the result files' `triggers` sections, when recorded
    head_triggers: Any = None
    base_usage: Any = None  # the result files' `usage` (tokens and cost per answer), when recorded
    head_usage: Any = None


class Comparison(NamedTuple):
    base: str  # the base commit
    label: str  # how the comment names it
    skills: Mapping[str, SkillChange]
    note: str = ""  # why there is nothing to compare (no result file at the base)
    decided: bool = False  # the run's own gate applied gate.previous to it (the previous arm)


def reps_to_decide_line(before: Counts, after: Counts) -> int:
    """Reps per arm at which a line's change (after - before) would leave 0, at its observed size."""
    iv = newcombe(before[0], before[1], after[0], after[1])
    return reps_to_decide(line_variance(before[0], before[1], after[0], after[1]), abs(iv.estimate), Z95)


def _diff(before: Counts, after: Counts) -> tuple[float, float]:
    """A line's change (after - before) and its variance, from shares shrunk toward 1/2."""
    d = (after[0] / after[1] if after[1] else 0.0) - (before[0] / before[1] if before[1] else 0.0)
    pa, pb = (after[0] + 1) / (after[1] + 2), (before[0] + 1) / (before[1] + 2)
    var = pa * (1 - pa) / max(after[1], 1) + pb * (1 - pb) / max(before[1], 1)
    return d, var


def overall(items: Sequence[tuple[str, str, Counts, Counts]]) -> Interval | None:
    """The mean over (scenario, model) of the mean line change from `before` to `after` counts, with
    a 95% interval (module doc)."""
    units: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for scenario, model, before, after in items:
        units.setdefault((scenario, model), []).append(_diff(before, after))
    if not units:
        return None
    means = [sum(d for d, _ in u) / len(u) for u in units.values()]
    # Lines of a scenario move together: the SD of their mean is at most the mean of their SDs.
    variances = [(sum(math.sqrt(v) for _, v in u) / len(u)) ** 2 for u in units.values()]
    k = len(means)
    est = sum(means) / k
    half = Z95 * math.sqrt(sum(variances)) / k
    return Interval(est, max(-1.0, est - half), min(1.0, est + half))


def reps_text(reps: int | None) -> str:
    if reps is None:
        return ""
    return f"more than {REPS_CAP}" if reps > REPS_CAP else str(reps)
