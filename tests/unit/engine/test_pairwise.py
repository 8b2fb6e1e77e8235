"""compare.pairwise: a blind A/B per rep. A judge that always picks the first position lands near 50%
(the order is random); one that always picks the with-skill answer gives 100%; the order is recorded."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from tests.support.engine import SKILL_TEXT, Scripted, engine, scenario, settings, skill, verdicts

from skill_be.engine.calls import Model
from skill_be.engine.pairwise import parse_preferences, preference
from skill_be.engine.runner import SkillRun
from skill_be.engine.verdicts import Unparseable
from skill_be.reports.pairwise import pairwise_json, pairwise_lines

SKILLED = "allocate(10, [1, 1, 1]) -- with the skill"


def answer(prompt: str, n: int) -> str:
    return SKILLED if SKILL_TEXT in prompt else "a loop"


def run(pick: str, reps: int) -> SkillRun:
    def judge(prompt: str, n: int) -> str:
        if "PREFERENCES:" not in prompt:
            return verdicts(True)
        if pick == "first":
            return "PREFERENCES:\n1: A\n"
        a = prompt.split("<answer_a>")[1].split("</answer_a>")[0]
        return f"PREFERENCES:\n1: {'A' if 'with the skill' in a else 'B'}\n"

    s = replace(settings(reps), pairwise=True, pairwise_seed=31)  # a fixed order: the test cannot flake
    e = engine([Model("m", Scripted(answer))], Model("g", Scripted(judge)), s)
    return asyncio.run(e.run_skill(skill(scenarios=[scenario("split")]), 0))


def test_a_judge_that_always_picks_a_shows_about_half() -> None:
    out = run("first", 200)
    assert out.pairwise is not None and len(out.pairwise) == 200
    p = preference(out.pairwise)
    assert p is not None and 0.4 < p.rate < 0.6 and p.low < 0.5 < p.high
    assert {c.a for c in out.pairwise} == {"baseline", "with-skill"}  # the order is random and recorded
    assert all(c.preferred == (c.a,) for c in out.pairwise)


def test_a_judge_that_always_picks_the_skill_gives_100() -> None:
    out = run("skill", 20)
    p = preference(out.pairwise or ())
    assert p is not None and (p.rate, p.wins, p.losses) == (1.0, 20, 0) and p.low > 0.8
    doc = pairwise_json(out.pairwise)["pairwise"]
    assert doc["preference"]["estimate"] == 100.0  # type: ignore[index]
    first = doc["comparisons"][0]  # type: ignore[index]
    assert set(first) == {"scenario", "model", "rep", "a", "preferred", "error"} and first["preferred"] == [
        "with-skill"
    ]
    line = pairwise_lines(out.pairwise, 0.25)[0]
    assert "the judge prefers the skill's answer: 100%, " in line and "beside the pass-rate delta +25.0pp" in line


def test_the_reply_is_read_from_the_last_block() -> None:
    assert parse_preferences("PREFERENCES:\n1: B\n2: neither\n", 2) == ["B", "NEITHER"]
    with pytest.raises(Unparseable):
        parse_preferences("PREFERENCES:\n1: B\n", 2)


def test_off_by_default() -> None:
    e = engine([Model("m", Scripted(answer))], Model("g", Scripted(lambda p, n: verdicts(True))), settings(2))
    assert asyncio.run(e.run_skill(skill(), 0)).pairwise is None


def test_it_feeds_the_gate_only_when_the_config_says_so() -> None:
    from skill_be.commands.run import pairwise_judge
    from skill_be.engine.pairwise import baseline_preferred
    from skill_be.engine.reasons import PAIRWISE, reasons
    from skill_be.reports.gate import gate_reasons
    from skill_be.reports.pairwise import block_text

    def judge(prompt: str, n: int) -> str:  # prefers the baseline's answer, wherever it is shown
        if "PREFERENCES:" not in prompt:
            return verdicts(True)
        a = prompt.split("<answer_a>")[1].split("</answer_a>")[0]
        return f"PREFERENCES:\n1: {'B' if 'with the skill' in a else 'A'}\n"

    s = replace(settings(10), pairwise=True, pairwise_seed=3)
    e = engine([Model("m", Scripted(answer))], Model("g", Scripted(judge)), s)
    out = asyncio.run(e.run_skill(skill(scenarios=[scenario("split")]), 0))
    assert out.gate.ready  # the lines alone: READY
    block = baseline_preferred(out.pairwise)
    assert block is not None and block.high < 0.5
    assert block_text(block).startswith("blind A/B: the judge prefers the baseline's answer (the skill's 0%")
    assert pairwise_judge(False, None) is None  # off by default: the gate never sees it
    gated = pairwise_judge(True, None)
    assert gated is not None
    blocked = gated(out)
    assert not blocked.gate.ready and any("compare.pairwiseGate" in r for r in gate_reasons(blocked.gate))
    assert [(r.kind, r.source) for r in reasons(blocked.gate)] == [(PAIRWISE, "compare.pairwiseGate")]
    assert baseline_preferred(run("skill", 10).pairwise) is None  # the control: a skill the judge prefers
    from skill_be.reports.gate import release_gate_section

    assert any(
        line.startswith("- **BLOCKED** (compare.pairwiseGate): blind A/B")
        for line in release_gate_section(blocked.gate)
    )
