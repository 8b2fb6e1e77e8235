"""engine/across.py: a row per model with its loads, rates, effect and its own verdict; gate.models
names the models that must hold; a required model's trigger check blocks, another's does not."""

from __future__ import annotations

from dataclasses import replace

from skill_be.engine.across import rows, with_triggers
from skill_be.engine.gate import Gate, ModelRow, ScenarioLines, arm_samples, decide, score_lines
from skill_be.engine.observations import Output
from skill_be.engine.trigger_scores import Observation
from skill_be.engine.trigger_scores import decide as decide_triggers
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario
from skill_be.project.triggers import TriggerGate, TriggerQuery

SCENARIO = Scenario(id="s", prompt="p", critical=True, criteria=("c",), output=None)
LINES = [ScenarioLines(SCENARIO, ())]


def outputs(model: str, base: list[bool], skill: list[bool], loaded: list[bool] | None = None) -> list[Output]:
    out = []
    for arm, verdicts in (("baseline", base), ("with-skill", skill)):
        for rep, v in enumerate(verdicts, 1):
            o = Output(scenario="s", model=model, rep=rep, arm=arm, text="x", verdicts=[v])
            if loaded is not None:
                o.meta["agent"] = {"loaded": loaded[rep - 1] if arm == "with-skill" else False}
            out.append(o)
    return out


def table(config: GateConfig | None = None) -> tuple[Gate, tuple[ModelRow, ...]]:
    config = config or GateConfig()
    outs = outputs("a", [False] * 3, [True] * 3, [True, True, False]) + outputs("b", [False] * 3, [False] * 3)
    labels = ["a", "b"]
    scores = [x for m in labels for x in score_lines(LINES[0], m, [o for o in outs if o.model == m])]
    samples = arm_samples(LINES, labels, outs)
    gate = decide(scores, [SCENARIO], labels, 0, False, config, samples)
    return gate, rows(scores, [SCENARIO], labels, outs, False, config, samples)


def test_a_row_per_model_with_its_own_verdict() -> None:
    gate, (a, b) = table()
    assert gate.ready  # the reference's one gate: 0% on b alone is no universal 0%
    assert (a.model, a.required, a.ready, a.baseline, a.with_skill, a.agent_loaded) == (
        "a",
        True,
        True,
        (0, 3),
        (3, 3),
        (2, 3),
    )
    assert (b.model, b.required, b.ready, b.with_skill, b.agent_loaded) == ("b", True, False, (0, 3), None)
    assert a.effect is not None and a.effect.estimate == 1.0 and b.effect is not None and b.effect.estimate == 0.0
    _, (a, b) = table(GateConfig(models=("a",)))
    assert (a.required, b.required) == (True, False)


def test_one_model_has_no_table() -> None:
    outs = outputs("a", [False], [True])
    scores = score_lines(LINES[0], "a", outs)
    assert rows(scores, [SCENARIO], ["a"], outs, False, GateConfig(), arm_samples(LINES, ["a"], outs)) == ()


def test_a_trigger_check_blocks_only_when_its_model_must_hold() -> None:
    query = TriggerQuery("q", "should", ("triggers", "should", 0))
    seen = [Observation(query, "a", 1, "money"), Observation(query, "b", 1, None)]  # b never loads it
    config = GateConfig(trigger=TriggerGate(min_recall=50))
    result = decide_triggers("money", ["money"], [query], ["a", "b"], seen, 1, config)
    gate, across = table(GateConfig(models=("a",), trigger=TriggerGate(min_recall=50)))
    held = with_triggers(replace(gate, across=across), result)
    assert held.ready  # b's recall check blocks, but b need not hold
    assert [(r.model, r.trigger_loaded, r.ready) for r in held.across] == [("a", (1, 1), True), ("b", (0, 1), False)]
    gate, across = table(GateConfig(trigger=TriggerGate(min_recall=50)))
    assert not with_triggers(replace(gate, across=across), result).ready  # control: every model must hold
