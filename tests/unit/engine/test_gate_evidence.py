"""The gate's decisions with intervals: strict's noise notes, evidence's blocks, inconclusive and
pass, and the top-up path, on constructed score tables."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

import pytest

from skill_be.engine import stats
from skill_be.engine.gate import Gate, LineScore, ScenarioLines, arm_samples, decide, percent
from skill_be.engine.observations import Output
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.engine.stats import ArmSample
from skill_be.engine.topup import plan_top_up, settle
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario
from skill_be.reports import strings as s
from skill_be.reports.gate import gate_reasons, release_gate_section

EVIDENCE = GateConfig(rule="evidence")
Table = dict[tuple[str, str], tuple[list[list[bool]], list[list[bool]]]]  # (scenario, model) -> arms' passes


def sc(id_: str, critical: bool = True, lines: int = 2) -> Scenario:
    return Scenario(id=id_, prompt="p", critical=critical, criteria=tuple(f"c{i}" for i in range(lines)), output=None)


def answers(n: int, passing: Sequence[int], lines: int) -> list[list[bool]]:
    """n answers; answer i passes its first passing[i % len] lines (criteria move together)."""
    return [[j < passing[i % len(passing)] for j in range(lines)] for i in range(n)]


def scores_of(table: Table) -> list[LineScore]:
    out = []
    for (scenario, model), (base, skill) in table.items():
        for i in range(len(base[0])):
            kb, ks = sum(a[i] for a in base), sum(a[i] for a in skill)
            out.append(
                LineScore(
                    scenario, f"c{i}", "criterion", model,
                    percent(kb, len(base)), percent(ks, len(skill)), kb, len(base), ks, len(skill),
                )
            )  # fmt: skip
    return out


def judge(table: Table, scenarios: Sequence[Scenario], config: GateConfig = EVIDENCE, looks: int = 1) -> Gate:
    models = sorted({m for _, m in table})
    samples = {k: (ArmSample.of(b), ArmSample.of(s_)) for k, (b, s_) in table.items()}
    return decide(scores_of(table), scenarios, models, 0, False, config, samples, looks)


def test_strict_blocks_a_small_drop_and_notes_it_is_noise() -> None:
    # 5 reps: 3/5 -> 2/5 on one line of a critical scenario. The reference blocks; the interval contains 0.
    table = {("a", "m"): (answers(5, [2, 2, 2, 0, 0], 2), answers(5, [2, 2, 0, 0, 0], 2))}
    g = judge(table, [sc("a")], GateConfig())
    assert not g.ready and len(g.regressions) == 2 and len(g.notes) == 2
    text = release_gate_section(g)
    first = text.index(
        s.BLOCKED_REGRESSION.format(scenario="a", model="m", line="c0", baseline=60, with_skill=40, delta="-20")
    )
    assert text[first + 1].startswith("  - Within the noise: the 95% interval of this delta, ")
    assert text[first + 1].endswith("; 5 reps per arm cannot tell; about 97 would: run --reps 97.")
    assert text[-1] == s.NOT_READY_LINE


def test_strict_does_not_note_a_drop_outside_the_noise() -> None:
    table = {("a", "m"): (answers(20, [2], 2), answers(20, [0], 2))}
    g = judge(table, [sc("a")], GateConfig())
    assert not g.ready and len(g.regressions) == 2 and g.notes == ()


def test_evidence_passes_the_small_drop_as_inconclusive() -> None:
    table = {("a", "m"): (answers(5, [2, 2, 2, 0, 0], 2), answers(5, [2, 2, 0, 0, 0], 2))}
    g = judge(table, [sc("a")])
    assert g.ready and g.blocks == () and g.regressions == ()
    assert {i.line for i in g.inconclusive} == {None, "c0", "c1"}
    assert all(i.reps > 5 and i.have == 5 for i in g.inconclusive)
    text = "\n".join(release_gate_section(g))
    assert "**INCONCLUSIVE**: `a` / m — the scenario's mean delta: -20pp" in text
    assert s.INCONCLUSIVE_PASSES in text and text.endswith(s.READY_LINE)
    assert gate_reasons(g) == []


def test_evidence_inconclusive_can_block() -> None:
    table = {("a", "m"): (answers(5, [2, 2, 2, 0, 0], 2), answers(5, [2, 2, 0, 0, 0], 2))}
    g = judge(table, [sc("a")], GateConfig(rule="evidence", inconclusive="block"))
    assert not g.ready and g.inconclusive_blocks
    assert any(r.startswith("inconclusive: a / m — the scenario's mean delta") for r in gate_reasons(g))


def test_evidence_blocks_a_clear_drop_of_a_critical_scenario() -> None:
    table = {("a", "m"): (answers(10, [2, 2, 2, 2, 1], 2), answers(10, [0, 0, 1, 0, 0], 2))}
    g = judge(table, [sc("a"), sc("b", critical=False)])
    assert not g.ready
    assert {(b.scenario, b.line) for b in g.blocks} >= {("a", None)}
    assert all(b.interval.high < 0 for b in g.blocks)
    text = "\n".join(release_gate_section(g))
    assert "- **BLOCKED** (regression, evidence): `a` / m — the scenario's mean delta -80pp" in text
    assert "regression (evidence): a / m — the scenario's mean delta: -80pp, below 0" in gate_reasons(g)


def test_evidence_ignores_a_drop_on_a_scenario_that_is_not_critical() -> None:
    table = {("a", "m"): (answers(10, [2], 2), answers(10, [0], 2))}
    g = judge(table, [sc("a", critical=False)])
    assert g.ready and g.blocks == () and g.inconclusive == ()


def test_evidence_passes_a_harmless_skill_with_enough_reps() -> None:
    # 25 reps, same answers in both arms: the harm of 30pp is ruled out, nothing is inconclusive.
    table = {("a", "m"): (answers(25, [2, 1, 2, 2], 2), answers(25, [2, 2, 1, 2], 2))}
    g = judge(table, [sc("a")])
    assert g.ready and g.blocks == () and g.inconclusive == ()
    assert g.effects is not None and g.effects.overall.label == stats.NO_CLEAR_DIFFERENCE
    assert not g.effects.low_sample


def test_evidence_correction_grows_with_scenarios_and_models() -> None:
    one = judge({("a", "m"): (answers(5, [2], 2), answers(5, [0], 2))}, [sc("a")])
    many = judge(
        {(x, m): (answers(5, [2], 2), answers(5, [0], 2)) for x in "abc" for m in ("m1", "m2")},
        [sc(x) for x in "abc"],
    )
    assert one.levels.scenario_tests == 1 and many.levels.scenario_tests == 6
    assert many.levels.scenario_level == one.levels.scenario_level / 6
    # the scenarios get 80% of the 5%, the lines 20%
    assert one.levels.scenario_level == pytest.approx(0.04) and one.levels.line_level == pytest.approx(0.005)
    # a 2-look run (--top-up) spends a quarter on the first look and the rest on the second
    two = judge({("a", "m"): (answers(5, [2], 2), answers(5, [0], 2))}, [sc("a")], looks=2).levels
    assert two.scenario_level == pytest.approx(0.01)
    assert replace(two, look=2).scenario_level == pytest.approx(0.03)


def test_evidence_zero_rule_needs_a_sure_low_rate() -> None:
    # 0/3 with the skill: the upper bound is far above 20%, no block. 0/20: below it, blocks.
    few = judge({("a", "m"): (answers(3, [0], 1), answers(3, [0], 1))}, [sc("a", critical=False, lines=1)])
    assert few.ready and few.zero == ()
    many = judge({("a", "m"): (answers(20, [0], 1), answers(20, [0], 1))}, [sc("a", critical=False, lines=1)])
    assert not many.ready and many.zero == (("a", "c0"),)
    assert '- **BLOCKED** (universal 0%, evidence): `a` — criterion: *"c0"*' in "\n".join(release_gate_section(many))
    # strict blocks both
    strict = judge(
        {("a", "m"): (answers(3, [0], 1), answers(3, [0], 1))}, [sc("a", critical=False, lines=1)], GateConfig()
    )
    assert strict.zero == (("a", "c0"),)


def test_errors_still_block_under_evidence() -> None:
    g = decide([], [sc("a")], ["m"], 2, False, EVIDENCE, {})
    assert not g.ready and gate_reasons(g) == ["2 output(s) could not be generated or graded"]


def test_plan_top_up_asks_for_the_reps_that_decide_capped() -> None:
    table = {("a", "m"): (answers(5, [2, 2, 2, 0, 0], 2), answers(5, [2, 2, 0, 0, 0], 2))}
    g = judge(table, [sc("a")], looks=2)
    wanted = max(i.reps for i in g.inconclusive)
    plan = plan_top_up(g, 5, 20)
    assert [(t.scenario, t.model, t.reps_from) for t in plan] == [("a", "m", 5)]
    assert plan[0].reps_to == min(wanted, 20)
    assert plan_top_up(g, 5, 5) == []


def _output(scenario: str, model: str, rep: int, arm: str, verdicts: list[bool]) -> Output:
    o = Output(scenario=scenario, model=model, rep=rep, arm=arm)
    o.verdicts = verdicts
    return o


class _M:
    def __init__(self, label: str) -> None:
        self.label = label


def test_settle_tops_up_the_inconclusive_and_decides_again() -> None:
    scenario = sc("a")
    lines = [ScenarioLines(scenario, ())]
    outputs: list[Output] = []
    # first 5 reps: baseline 60%, with skill 40%; every later rep passes in both arms
    first = {BASELINE: [True, True, True, False, False], WITH_SKILL: [True, True, False, False, False]}
    for rep in range(1, 6):
        for arm in (BASELINE, WITH_SKILL):
            outputs.append(_output("a", "m", rep, arm, [first[arm][rep - 1]] * 2))
    made: list[int] = []

    async def run_rep(sl: ScenarioLines, model: _M, rep: int) -> None:
        made.append(rep)
        for arm in (BASELINE, WITH_SKILL):
            outputs.append(_output(sl.scenario.id, model.label, rep, arm, [True, True]))

    config = GateConfig(rule="evidence", top_up_reps=12)
    scores, gate = asyncio.run(settle(lines, [_M("m")], outputs, config, 5, True, run_rep))
    assert sorted(made) == list(range(6, 13))  # up to the cap, no more
    assert [(t.reps_from, t.reps_to) for t in gate.top_up] == [(5, 12)]
    assert gate.levels.looks == 2
    assert scores[0].baseline_total == 12 and scores[0].with_skill_total == 12
    assert len(outputs) == 24 and [o.rep for o in outputs[:4]] == [1, 1, 2, 2]
    text = "\n".join(release_gate_section(gate))
    assert "Top-up: `a` / m from 5 to 12 reps per arm (14 more model calls)." in text
    # without --top-up nothing more is made, and the level is not split
    outputs[:] = outputs[:10]
    made.clear()
    _, gate = asyncio.run(settle(lines, [_M("m")], outputs, config, 5, False, run_rep))
    assert made == [] and gate.levels.looks == 1 and gate.top_up == ()


def test_arm_samples_read_each_answer() -> None:
    scenario = sc("a")
    outs = [_output("a", "m", 1, BASELINE, [True, False]), _output("a", "m", 1, WITH_SKILL, [True, True])]
    got = arm_samples([ScenarioLines(scenario, ())], ["m"], outs)
    assert got[("a", "m")][0].shares == (0.5,) and got[("a", "m")][1].shares == (1.0,)


def test_a_first_look_block_stands_at_the_second_look() -> None:
    scenarios = [sc("a")]
    first = judge({("a", "m"): (answers(10, [2], 2), answers(10, [0], 2))}, scenarios, looks=2)
    assert not first.ready and any(b.line is None for b in first.blocks)
    # the second look's data alone would pass: the first look's blocks stay, and are not also inconclusive
    table = {("a", "m"): (answers(12, [2, 1, 0], 2), answers(12, [2, 1, 0], 2))}
    models = ["m"]
    samples = {k: (ArmSample.of(b), ArmSample.of(s_)) for k, (b, s_) in table.items()}
    second = decide(scores_of(table), scenarios, models, 0, False, EVIDENCE, samples, 2, 2, first)
    assert not second.ready and second.blocks == first.blocks
    assert all(i.line is not None for i in second.inconclusive)
    assert second.levels.look == 2


def test_a_ready_skill_with_a_line_at_zero_never_says_no_universal_zero() -> None:
    """Evidence: 0 of 2 with the skill cannot be told from 20%, so it does not block; the READY line
    does not claim "No universal 0% criteria" and the line says how many reps would tell."""
    table = {("a", "m"): (answers(2, [1], 2), answers(2, [1], 2))}  # c1 at 0% in both arms
    g = judge(table, [sc("a", critical=False)])
    assert g.ready and [(z.scenario, z.line, z.have, z.reps) for z in g.zero_seen] == [("a", "c1", 2, 11)]
    text = release_gate_section(g)
    assert text[-1] == s.READY_LINE_ZERO_SEEN and s.READY_LINE not in text
    assert (
        '- 0% with the skill on every model, not blocking: `a` — *"c1"*: 2 reps per arm cannot tell it from 20%; '
        "about 11 would: run --reps 11."
    ) in text
    # the zero rule switched off says so, under strict too
    off = judge(table, [sc("a", critical=False)], GateConfig(block_on_zero=False))
    assert off.ready and release_gate_section(off)[-1] == s.READY_LINE_ZERO_SEEN
    assert '- 0% with the skill on every model, not blocking (gate.blockOnZero is false): `a` — *"c1"*.' in (
        release_gate_section(off)
    )


def test_the_reference_lines_stay_where_the_reference_prints_them() -> None:
    """Control: strict, the line at 0% blocks with the reference's words; with no line at 0%, READY
    is the reference's line byte for byte."""
    table = {("a", "m"): (answers(2, [1], 2), answers(2, [1], 2))}
    g = judge(table, [sc("a", critical=False)], GateConfig())
    assert not g.ready and g.zero_seen == ()
    assert s.BLOCKED_ZERO.format(scenario="a", line="c1") in release_gate_section(g)
    fine = {("a", "m"): (answers(2, [1], 2), answers(2, [2], 2))}
    ready = judge(fine, [sc("a", critical=False)], GateConfig())
    assert ready.ready and release_gate_section(ready)[-1] == s.READY_LINE == (
        "**READY** — No universal 0% criteria. No critical regressions."
    )
