"""Trigger evals' scores and gate: data only (reports/triggers.py words them).

Per skill and model: recall (loaded on `should` queries), false-trigger rate (loaded on `shouldNot`),
near-miss rate (loaded on near misses), each a share of the calls that answered, with its 95% Wilson
interval; a confusion table (which skill each kind of query loaded: this one, a neighbour, none).
`gate.trigger.minRecall` / `maxFalseTrigger` block under `strict` on the point estimate; under
`evidence` only when the whole interval is on the wrong side, inconclusive when it straddles the
threshold (with the reps that would decide it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skill_be.adapters.base import Usage
from skill_be.engine import stats
from skill_be.engine.stats import Interval
from skill_be.project.config import GateConfig
from skill_be.project.triggers import NEAR, SHOULD, SHOULD_NOT, TriggerQuery

NONE = "(none)"  # the confusion table's column for "no skill loaded"
Z95 = stats.z_two_sided(0.95)
Z_DECIDE = Z95 + stats.z_one_sided(0.2)  # as engine/gate.py: decided 80% of the time, not half
PASS, BLOCK, INCONCLUSIVE = "pass", "block", "inconclusive"
MIN_RECALL, MAX_FALSE_TRIGGER = "minRecall", "maxFalseTrigger"


@dataclass(frozen=True)
class Observation:
    """One trigger call: the query, the model, the rep, and the skill it loaded (None: none)."""

    query: TriggerQuery
    model: str
    rep: int
    chosen: str | None = None
    error: str | None = None
    seconds: float = 0.0
    usage: Usage | None = None


@dataclass(frozen=True)
class Rate:
    hits: int
    total: int

    @property
    def estimate(self) -> float:
        return self.hits / self.total if self.total else 0.0

    def interval(self, z: float = Z95) -> Interval:
        low, high = stats.wilson(self.hits, self.total, z)
        return Interval(self.estimate, low, high)


@dataclass(frozen=True)
class ModelTriggers:
    model: str
    recall: Rate
    false_trigger: Rate
    near_miss: Rate
    confusion: Mapping[str, Mapping[str, int]]  # kind -> loaded skill (or NONE) -> calls
    errors: int


@dataclass(frozen=True)
class TriggerCheck:
    """One gate key on one model, and what it decided."""

    model: str
    key: str  # minRecall | maxFalseTrigger
    threshold: float  # percent
    rate: Rate
    outcome: str  # pass | block | inconclusive
    reps: int = 0  # inconclusive: reps per query that would decide it


@dataclass(frozen=True)
class TriggerResult:
    skill: str
    offered: tuple[str, ...]  # the skill and its neighbours, as offered
    reps: int
    rule: str
    observations: tuple[Observation, ...]
    models: tuple[ModelTriggers, ...]
    checks: tuple[TriggerCheck, ...]
    block_on_errors: bool = True
    inconclusive_blocks: bool = False  # gate.inconclusive: block

    @property
    def errors(self) -> int:
        return sum(1 for o in self.observations if o.error is not None)

    @property
    def blocking(self) -> tuple[TriggerCheck, ...]:
        return tuple(
            c for c in self.checks if c.outcome == BLOCK or (c.outcome == INCONCLUSIVE and self.inconclusive_blocks)
        )

    @property
    def ready(self) -> bool:
        return not self.blocking and not (self.block_on_errors and self.errors)


def score_model(skill: str, model: str, observations: Sequence[Observation], columns: Sequence[str]) -> ModelTriggers:
    mine = [o for o in observations if o.model == model]
    answered = [o for o in mine if o.error is None]

    def rate(kind: str) -> Rate:
        of = [o for o in answered if o.query.kind == kind]
        return Rate(sum(1 for o in of if o.chosen == skill), len(of))

    confusion: dict[str, dict[str, int]] = {}
    for kind in (SHOULD, SHOULD_NOT, NEAR):
        of = [o for o in answered if o.query.kind == kind]
        if of:
            row = {c: 0 for c in [*columns, NONE]}
            for o in of:
                row[o.chosen or NONE] = row.get(o.chosen or NONE, 0) + 1
            confusion[kind] = row
    return ModelTriggers(
        model, rate(SHOULD), rate(SHOULD_NOT), rate(NEAR), confusion, sum(1 for o in mine if o.error is not None)
    )


def _reps_to_decide(rate: Rate, threshold: float, queries: int) -> int:
    """Reps per query at which the interval around the current share would clear the threshold."""
    p = (rate.hits + 1) / (rate.total + 2)
    calls = stats.reps_to_decide(p * (1 - p), abs(rate.estimate - threshold), Z_DECIDE)
    if calls > stats.REPS_CAP:
        return stats.REPS_CAP + 1
    return max(1, math.ceil(calls / max(queries, 1)))


def check(model: str, key: str, threshold: float, rate: Rate, rule: str, queries: int, reps: int) -> TriggerCheck:
    """`minRecall`: the share must reach the threshold; `maxFalseTrigger`: it must not pass it."""
    t = threshold / 100
    low_is_bad = key == MIN_RECALL
    if rate.total == 0:
        return TriggerCheck(model, key, threshold, rate, BLOCK)  # every call failed: nothing shows it holds
    if rule != "evidence":
        bad = rate.estimate < t if low_is_bad else rate.estimate > t
        return TriggerCheck(model, key, threshold, rate, BLOCK if bad else PASS)
    iv = rate.interval()
    if (iv.high < t) if low_is_bad else (iv.low > t):
        return TriggerCheck(model, key, threshold, rate, BLOCK)
    if (iv.low >= t) if low_is_bad else (iv.high <= t):
        return TriggerCheck(model, key, threshold, rate, PASS)
    need = _reps_to_decide(rate, t, queries)
    return TriggerCheck(model, key, threshold, rate, INCONCLUSIVE, max(need, reps + 1))


def decide(
    skill: str,
    offered: Sequence[str],
    queries: Sequence[TriggerQuery],
    models: Sequence[str],
    observations: Sequence[Observation],
    reps: int,
    config: GateConfig,
) -> TriggerResult:
    columns = [skill, *(n for n in offered if n != skill)]
    scored = tuple(score_model(skill, m, observations, columns) for m in models)
    checks: list[TriggerCheck] = []
    gate = config.trigger
    n_should = sum(1 for q in queries if q.kind == SHOULD)
    n_not = sum(1 for q in queries if q.kind == SHOULD_NOT)
    for ms in scored:
        if gate is not None and gate.min_recall is not None and n_should:
            checks.append(check(ms.model, MIN_RECALL, gate.min_recall, ms.recall, config.rule, n_should, reps))
        if gate is not None and gate.max_false_trigger is not None and n_not:
            checks.append(
                check(ms.model, MAX_FALSE_TRIGGER, gate.max_false_trigger, ms.false_trigger, config.rule, n_not, reps)
            )
    return TriggerResult(
        skill=skill,
        offered=tuple(columns),
        reps=reps,
        rule=config.rule,
        observations=tuple(observations),
        models=scored,
        checks=tuple(checks),
        block_on_errors=config.block_on_errors,
        inconclusive_blocks=config.rule == "evidence" and config.inconclusive == "block",
    )
