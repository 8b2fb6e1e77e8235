"""Scenarios run for review (`graded: false`) as the gate sees them: named in `Gate.ungraded`, never
READY on their own (`Gate.nothing_graded`), and no part of the decision once a scenario has lines."""

from __future__ import annotations

from skill_be.engine.gate import LineScore, decide
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario
from skill_be.reports import strings as s
from skill_be.reports.gate import gate_reasons, release_gate_section


def review(id_: str) -> Scenario:
    return Scenario(id=id_, prompt="p", critical=False, criteria=(), output=None, graded=False)


def graded(id_: str) -> Scenario:
    return Scenario(id=id_, prompt="p", critical=False, criteria=("c",), output=None)


def test_a_skill_whose_every_scenario_is_ungraded_is_not_ready() -> None:
    for rule in ("strict", "evidence"):
        g = decide([], [review("a"), review("b")], ["m"], 0, False, GateConfig(rule=rule), samples={})
        assert (g.ready, g.ungraded, g.nothing_graded) == (False, ("a", "b"), True), rule
        assert s.BLOCKED_NOT_GRADED.format(scenarios="a, b") in release_gate_section(g)
        assert release_gate_section(g)[-1] == s.NOT_READY_LINE
        assert gate_reasons(g) == ["not graded: no assertions: no scenario has a line to grade (a, b)"]


def test_the_control_the_same_skill_with_one_graded_scenario_is_decided_by_its_lines() -> None:
    line = LineScore("b", "c", "criterion", "m", 0, 100, 0, 1, 1, 1)
    g = decide([line], [review("a"), graded("b")], ["m"], 0, False, GateConfig())
    assert (g.ready, g.ungraded, g.nothing_graded) == (True, ("a",), False)
    assert release_gate_section(g)[-1] == s.READY_LINE
    plain = decide([line], [graded("b")], ["m"], 0, False, GateConfig())
    assert (plain.ready, plain.ungraded) == (True, ())  # nothing changes for a file without them
