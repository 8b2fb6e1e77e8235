"""After the reps: the scores, the gate, and under `--top-up` a second look at what was inconclusive.

The first look is decided at a quarter of the error level (gate.FIRST_LOOK_SHARE); each inconclusive (scenario, model) then gets
more reps, up to the reps that would decide it and at most `gate.topUpReps`, and the gate is decided
again on every rep at the other three quarters. Blocks of the first look stand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from skill_be.engine.across import required_models, rows
from skill_be.engine.gate import (
    Gate,
    LineScore,
    NotHeldOn,
    Samples,
    ScenarioLines,
    TopUp,
    arm_samples,
    decide,
    effects,
    score_lines,
    with_rules,
)
from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARMS
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario


class _Model(Protocol):
    @property
    def label(self) -> str: ...


M = TypeVar("M", bound=_Model)


def all_scores(lines: Sequence[ScenarioLines], models: Sequence[str], outputs: Sequence[Output]) -> list[LineScore]:
    return [
        score
        for sl in lines
        for m in models
        for score in score_lines(sl, m, [o for o in outputs if o.scenario == sl.scenario.id and o.model == m])
    ]


def plan_top_up(gate: Gate, reps: int, cap: int) -> list[TopUp]:
    """Each inconclusive (scenario, model) to the most reps any of its inconclusive deltas asks for,
    at most `cap`; nothing when the cap is not above the reps already made."""
    want: dict[tuple[str, str], int] = {}
    for i in gate.inconclusive:
        key = (i.scenario, i.model)
        want[key] = max(want.get(key, 0), min(i.reps, cap))
    return [TopUp(sc, m, reps, target) for (sc, m), target in want.items() if target > reps]


def _order(
    lines: Sequence[ScenarioLines], models: Sequence[str], outputs: list[Output], arms: Sequence[str] = ARMS
) -> None:
    order = {(sl.scenario.id, m): i for i, (sl, m) in enumerate((sl, m) for sl in lines for m in models)}
    rank = {arm: i for i, arm in enumerate(arms)}
    outputs.sort(key=lambda o: (order[(o.scenario, o.model)], o.rep, rank.get(o.arm, len(rank))))


def _decide(
    scores: list[LineScore],
    scenarios: list[Scenario],
    labels: list[str],
    outputs: list[Output],
    has_tests: bool,
    config: GateConfig,
    samples: Samples,
    looks: int,
    n: int,
    earlier: Gate | None,
) -> Gate:
    """The gate on the models that must hold (gate.models; every one by default), with every model's
    intervals shown and, for several models, the row of each (engine/across.py)."""
    required = required_models(labels, config)
    errors = sum(len(o.errors) for o in outputs if o.arm in ARMS and o.model in required)  # previous arm apart
    mine = [x for x in scores if x.model in required]
    kept = {k: v for k, v in samples.items() if k[1] in required}
    gate = decide(mine, scenarios, required, errors, has_tests, config, kept, looks, n, earlier)
    if required != labels:
        gate = replace(gate, effects=effects(scores, scenarios, labels, samples, config.margin))
    across = rows(scores, scenarios, labels, outputs, has_tests, config, samples)
    gate = replace(gate, across=across)
    if not config.models:  # the reference's rule: one gate over every model
        return gate
    return with_rules(gate, [NotHeldOn(r.model) for r in across if r.required and not r.ready])


async def settle(
    lines: Sequence[ScenarioLines],
    models: Sequence[M],
    outputs: list[Output],
    config: GateConfig,
    reps: int,
    top_up: bool,
    run_rep: Callable[[ScenarioLines, M, int], Coroutine[Any, Any, None]],
    arms: Sequence[str] = ARMS,
) -> tuple[list[LineScore], Gate]:
    """Scores and gate of a skill's outputs (sorted in place), with the top-up's extra reps when asked."""
    labels = [m.label for m in models]
    scenarios = [sl.scenario for sl in lines]
    has_tests = any(sl.tests or sl.scenario.output for sl in lines)
    # A second look only when one can happen: the level is split only then.
    looks = 2 if top_up and config.rule == "evidence" and config.top_up_reps > reps else 1

    def look(n: int, earlier: Gate | None) -> tuple[list[LineScore], Gate]:
        _order(lines, labels, outputs, arms)
        scores = all_scores(lines, labels, outputs)
        samples = arm_samples(lines, labels, outputs)
        gate = _decide(scores, scenarios, labels, outputs, has_tests, config, samples, looks, n, earlier)
        return scores, gate

    scores, gate = look(1, None)
    if looks == 1:
        return scores, gate
    plan = plan_top_up(gate, reps, config.top_up_reps)
    if not plan:
        return scores, gate
    by_id = {sl.scenario.id: sl for sl in lines}
    by_label = {m.label: m for m in models}
    async with asyncio.TaskGroup() as group:
        for t in plan:
            for rep in range(t.reps_from + 1, t.reps_to + 1):
                group.create_task(run_rep(by_id[t.scenario], by_label[t.model], rep))
    first = replace(gate, top_up=tuple(plan))
    return look(2, first)
