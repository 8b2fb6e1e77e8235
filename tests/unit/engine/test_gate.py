from __future__ import annotations

from skill_be.engine.gate import LineScore, decide, percent
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario
from skill_be.reports import strings as s
from skill_be.reports.gate import release_gate_section


def sc(id_: str, critical: bool = False) -> Scenario:
    return Scenario(id=id_, prompt="p", critical=critical, criteria=("c",), output=None)


def score(scenario: str, model: str, base: int, skill: int, line: str = "c") -> LineScore:
    return LineScore(scenario, line, "criterion", model, base, skill)


def test_percent_rounds_to_whole_percent() -> None:
    assert [percent(k, 3) for k in range(4)] == [0, 33, 67, 100]
    assert percent(1, 2) == 50 and percent(1, 6) == 17 and percent(0, 0) == 0


def test_zero_blocks_only_when_zero_on_every_model() -> None:
    g = decide([score("a", "m1", 0, 0), score("a", "m2", 0, 50)], [sc("a")], ["m1", "m2"], 0, False, GateConfig())
    assert g.ready
    g = decide([score("a", "m1", 50, 0), score("a", "m2", 0, 0)], [sc("a")], ["m1", "m2"], 0, False, GateConfig())
    assert not g.ready and g.zero == (("a", "c"),)
    assert s.BLOCKED_ZERO.format(scenario="a", line="c") in release_gate_section(g)


def test_regression_on_any_model_of_a_critical_scenario() -> None:
    scores = [score("a", "m1", 100, 100), score("a", "m2", 100, 33)]
    g = decide(scores, [sc("a", critical=True)], ["m1", "m2"], 0, False, GateConfig())
    assert not g.ready
    assert '- **BLOCKED** (regression): `a` / m2 — *"c"*: 100% → 33% (-67pp)' in release_gate_section(g)
    assert decide(scores, [sc("a")], ["m1", "m2"], 0, False, GateConfig()).ready


def test_switches_turn_each_rule_off() -> None:
    scores = [score("a", "m1", 100, 0)]
    off = GateConfig(regression_on_critical=False, block_on_zero=False, block_on_errors=False)
    g = decide(scores, [sc("a", critical=True)], ["m1"], 3, False, off)
    assert g.ready
    assert release_gate_section(g)[-1] == s.READY_LINE
    assert any("Not blocking: gate.blockOnErrors is false." in line for line in release_gate_section(g))


def test_error_lines_with_and_without_code_tests() -> None:
    g = decide([score("a", "m1", 0, 100)], [sc("a")], ["m1"], 2, False, GateConfig())
    assert release_gate_section(g) == ["## Release Gate", "", s.ERROR_LINE.format(n=2), "", "**NOT READY**"]
    g = decide([score("a", "m1", 0, 100)], [sc("a")], ["m1"], 2, True, GateConfig())
    assert s.ERROR_LINE_WITH_TESTS.format(n=2) in release_gate_section(g)


def test_ready_section_is_the_fixed_string() -> None:
    g = decide([score("a", "m1", 0, 100)], [sc("a")], ["m1"], 0, False, GateConfig())
    assert release_gate_section(g) == [
        "## Release Gate",
        "",
        "**READY** — No universal 0% criteria. No critical regressions.",
    ]
