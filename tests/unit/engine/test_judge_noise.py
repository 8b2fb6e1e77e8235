"""The judge's own noise: a judge that answers at random on one criterion has that line flagged with
its figure; the line it grades consistently is not; one grading per answer reports nothing."""

from __future__ import annotations

import asyncio
import random

from tests.support.engine import Scripted, engine, scenario, settings, skill, verdicts

from skill_be.engine.calls import Model
from skill_be.engine.runner import SkillRun
from skill_be.reports.judge import agreement_line, judge_json, split_lines
from skill_be.reports.markdown import Header, skill_report

CRITERIA = ("Follows the style guide", "Uses allocate")


def run(gradings: int, rng: random.Random | None) -> SkillRun:
    def grade(prompt: str, n: int) -> str:  # criterion 1 a coin toss (or always YES), criterion 2 always YES
        return verdicts(rng.random() < 0.5 if rng else True, True)

    e = engine([Model("m", Scripted(lambda p, n: "allocate(10)"))], Model("g", Scripted(grade)), settings(10, gradings))
    return asyncio.run(e.run_skill(skill(scenarios=[scenario("split", CRITERIA)]), 0))


def test_a_random_criterion_is_flagged_and_a_consistent_one_is_not() -> None:
    out = run(3, random.Random(7))
    noise = out.judge
    assert noise is not None
    style, allocate = noise.lines
    assert (style.line, style.answers) == ("Follows the style guide", 20)  # 10 reps x 2 arms
    assert style.split >= 10 and style.flagged  # a coin toss splits 3 gradings 75% of the time
    assert (allocate.split, allocate.flagged) == (0, False)
    assert noise.agreed == 40 - style.split and noise.graded == 40
    words = f"the judge disagrees with itself on {style.split} of 20 answers: sharpen the criterion"
    assert f'- **NOTE** *"Follows the style guide"*: {words}' in split_lines(noise, "split", "m")
    assert "*Uses allocate* 0 of 20 (0%)" in split_lines(noise, "split", "m")[1]
    pct = round(100 * noise.agreement)
    assert agreement_line(noise) == [
        f"Judge agreement: {pct}% ({noise.agreed} of 40 graded criteria had every grading agree); "
        "1 line(s) split on more than 20% of their answers."
    ]
    doc = judge_json(noise)["judge"]
    assert doc["maxSplitShare"] == 0.2 and [x["flagged"] for x in doc["lines"]] == [True, False]  # type: ignore[index]
    report = skill_report(out, Header("2026-01-01", ["command:m"], ["m"], 10, 3, "g", "command"))
    assert words in report and "Judge agreement: " in report


def test_a_consistent_judge_flags_nothing_and_one_grading_reports_nothing() -> None:
    steady = run(3, None).judge
    assert steady is not None and steady.flagged == () and steady.agreement == 1.0
    assert agreement_line(steady) == ["Judge agreement: 100% (40 of 40 graded criteria had every grading agree)."]
    once = run(1, random.Random(7))
    assert once.judge is None and judge_json(once.judge) == {}
    report = skill_report(once, Header("2026-01-01", ["command:m"], ["m"], 10, 1, "g", "command"))
    assert "Judge" not in report
