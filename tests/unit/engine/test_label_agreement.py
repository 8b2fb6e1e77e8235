"""Numbers that agree (issue 20): over random tables of pass/fail, no report level states a label
that contradicts the labels of its parts without saying why, and one scenario never yields a
zero-width overall interval. Seeded: the same tables on every machine."""

from __future__ import annotations

import random

import pytest

from skill_be.engine import stats
from skill_be.engine.agreement import ONE_SCENARIO, overall_why, scenario_why
from skill_be.engine.gate import Effects, ScenarioLines, arm_samples, effects, score_lines
from skill_be.engine.observations import Grading, Output
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.project.evals import Scenario

B, W, N = stats.BETTER, stats.WORSE, stats.NO_CLEAR_DIFFERENCE


def table(rng: random.Random) -> tuple[list[ScenarioLines], list[str], list[Output]]:
    """Random scenarios x models x reps, each line passing at its own rate per arm."""
    models = [f"m{i}" for i in range(rng.randint(1, 2))]
    lines, outputs = [], []
    for s in range(rng.randint(1, 3)):
        n = rng.randint(1, 3)
        sc = Scenario(f"s{s}", "p", rng.random() < 0.5, tuple(f"c{i}" for i in range(n)), None)
        lines.append(ScenarioLines(sc, ()))
        reps = rng.choice((1, 2, 3, 5, 10, 20))
        for m in models:
            rates = {arm: [rng.choice((0.0, 0.1, 0.5, 0.9, 1.0)) for _ in range(n)] for arm in (BASELINE, WITH_SKILL)}
            for rep in range(1, reps + 1):
                for arm in (BASELINE, WITH_SKILL):
                    o = Output(sc.id, m, rep, arm, text="x")
                    o.verdicts = [rng.random() < r for r in rates[arm]]
                    o.gradings = [Grading(1, list(o.verdicts))]
                    outputs.append(o)
    return lines, models, outputs


def effects_of(lines: list[ScenarioLines], models: list[str], outputs: list[Output]) -> Effects:
    scores = [
        x
        for sl in lines
        for m in models
        for x in score_lines(sl, m, [o for o in outputs if o.scenario == sl.scenario.id and o.model == m])
    ]
    return effects(scores, [sl.scenario for sl in lines], models, arm_samples(lines, models, outputs), 30, 400)


def disagree(parent: str, children: list[str]) -> bool:
    """Two labels that need a reason side by side: a part decided where the whole is not, parts
    that go the other way, or a whole that is sure when no part is."""
    if parent == N:
        return any(c != N for c in children)
    return any(c not in (parent, N) for c in children) or (bool(children) and all(c == N for c in children))


@pytest.mark.parametrize("seed", range(300))
def test_nested_labels_never_contradict_without_a_reason(seed: int) -> None:
    rng = random.Random(seed)
    lines, models, outputs = table(rng)
    fx = effects_of(lines, models, outputs)
    for e in fx.scenarios:
        children = [iv.label for (sc, m, _), iv in fx.lines.items() if (sc, m) == (e.scenario, e.model)]
        why = scenario_why(fx, e.scenario, e.model)
        assert (why is not None) == disagree(e.interval.label, children), (seed, e, children, why)
    parts = [e.interval.label for e in fx.scenarios]
    why = overall_why(fx)
    if disagree(fx.overall.label, parts):
        assert why is not None, (seed, fx.overall, parts)
    if why is not None and not fx.one_scenario:
        assert disagree(fx.overall.label, parts)


@pytest.mark.parametrize("seed", range(100))
def test_one_scenario_is_never_a_zero_width_overall(seed: int) -> None:
    rng = random.Random(1000 + seed)
    lines, models, outputs = table(rng)
    lines = lines[:1]
    outputs = [o for o in outputs if o.scenario == lines[0].scenario.id]
    fx = effects_of(lines, models, outputs)
    assert fx.one_scenario and fx.overall.high > fx.overall.low
    assert (overall_why(fx) or "").startswith(ONE_SCENARIO)
    if len(models) == 1:  # the overall is the scenario's own interval: the same label
        assert fx.overall == fx.scenarios[0].interval


def test_the_issue_case_every_answer_alike_in_one_scenario() -> None:
    """0/3 baseline and 3/3 with the skill: the bootstrap alone said "+100 to +100: better"."""
    sc = Scenario("s", "p", True, ("a", "b"), None)
    outputs = []
    for rep in (1, 2, 3):
        for arm, v in ((BASELINE, False), (WITH_SKILL, True)):
            o = Output("s", "m", rep, arm, text="x")
            o.verdicts = [v, v]
            outputs.append(o)
    fx = effects_of([ScenarioLines(sc, ())], ["m"], outputs)
    assert fx.overall == fx.scenarios[0].interval and fx.overall.low < 1.0


def test_low_sample_is_one_definition() -> None:
    assert stats.low_sample(stats.LOW_SAMPLE_ANSWERS - 1) and not stats.low_sample(stats.LOW_SAMPLE_ANSWERS)
