"""Tokens and cost against the base (issue 19, item 4): the result file's `usage` from a run's outputs,
and its one line per skill in the comment (check run, job summary) and in the terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from skill_be.adapters.base import Usage
from skill_be.engine.changes import COMPARED, SKILL_NEW, Comparison, LineChange, SkillChange
from skill_be.engine.pricing import answer_usage
from skill_be.engine.stats import newcombe
from skill_be.project.config import Price
from skill_be.reports import check_run
from skill_be.reports.comparison_text import comparison_lines
from skill_be.reports.pr_changes import usage_line
from skill_be.reports.pr_comment import GateView, SkillView, render

ARMS = {"baseline": "baseline", "withSkill": "with-skill"}


@dataclass
class Out:
    arm: str
    model: str
    prompt_chars: int
    text: str | None
    usage: Usage | None


def test_usage_is_the_mean_of_one_answer_per_arm_with_its_cost() -> None:
    outputs = [
        Out("baseline", "m", 0, "a", Usage(100, 10)),
        Out("baseline", "m", 0, "b", Usage(300, 30)),
        Out("with-skill", "m", 0, "c", Usage(1500, 20)),
        Out("with-skill", "m", 0, None, None),  # a failed call: not an answer
        Out("previous", "m", 0, "d", Usage(9999, 99)),  # another arm: not counted
    ]
    prices = {"m": Price(input=3.0, output=15.0)}
    doc = answer_usage(outputs, prices, {"m": "m"}, ARMS)
    assert doc == {
        "baseline": {"answers": 2, "inputTokens": 200.0, "outputTokens": 20.0, "costUsd": 0.0009},
        "withSkill": {"answers": 1, "inputTokens": 1500.0, "outputTokens": 20.0, "costUsd": 0.0048},
        "estimated": False,
    }  # by hand: (200 * 3 + 20 * 15) / 1e6 = 0.0009; (1500 * 3 + 20 * 15) / 1e6 = 0.0048
    unpriced = answer_usage(outputs, {}, {"m": "m"}, ARMS)
    assert unpriced is not None and "costUsd" not in unpriced["baseline"]  # type: ignore[operator]
    # characters / 4 where the adapter reports nothing, and said so
    estimated = answer_usage([Out("baseline", "m", 400, "x" * 40, None), outputs[2]], {}, {}, ARMS)
    assert estimated is not None and estimated["baseline"] == {"answers": 1, "inputTokens": 100.0, "outputTokens": 10.0}
    assert estimated["estimated"] is True
    assert answer_usage(outputs[:2], prices, {"m": "m"}, ARMS) is None  # no with-skill answer: nothing to compare


def test_usage_keeps_the_prompt_caches_reads_and_writes_of_one_answer() -> None:
    outputs = [
        Out("baseline", "m", 0, "a", Usage(100, 10)),
        Out("with-skill", "m", 0, "b", Usage(1500, 20, cache_write_tokens=1200)),
        Out("with-skill", "m", 0, "c", Usage(1500, 20, cache_read_tokens=1200)),
    ]
    doc = answer_usage(outputs, {}, {"m": "m"}, ARMS)
    assert doc is not None
    assert doc["withSkill"] == {
        "answers": 2,
        "inputTokens": 1500.0,
        "outputTokens": 20.0,
        "cacheReadTokens": 600.0,
        "cacheWriteTokens": 600.0,
    }
    assert doc["baseline"] == {"answers": 1, "inputTokens": 100.0, "outputTokens": 10.0}  # control: no cache, no keys


def usage(base_in: float, skill_in: float, base_cost: float | None = None, skill_cost: float | None = None) -> Any:
    def arm(tokens: float, cost: float | None) -> dict[str, Any]:
        return {"answers": 3, "inputTokens": tokens, "outputTokens": 50, **({"costUsd": cost} if cost else {})}

    return {"baseline": arm(base_in, base_cost), "withSkill": arm(skill_in, skill_cost), "estimated": False}


@pytest.mark.parametrize(
    ("base", "head", "line"),
    [
        (
            usage(400, 1380, 0.002, 0.005),
            usage(400, 1640, 0.002, 0.006),
            "Tokens: the skill adds +1,240 input tokens per answer (base: +980; this PR: +260) · "
            "cost +$0.0040 per answer (+$0.0010)",
        ),
        (
            None,  # the base's file has no usage: an older file, or the Node tool's
            usage(400, 1640, 0.002, 0.006),
            "Tokens: the skill adds +1,240 input tokens per answer (not recorded at base) · cost +$0.0040 per answer",
        ),
        (
            usage(400, 1380),  # no prices at the base
            usage(400, 1200),
            "Tokens: the skill adds +800 input tokens per answer (base: +980; this PR: -180)",
        ),
        (usage(400, 1380), None, None),  # nothing recorded now: no line
        (
            {"baseline": "broken"},
            usage(1, 2),
            "Tokens: the skill adds +1 input tokens per answer (not recorded at base)",
        ),
    ],
)
def test_the_tokens_line(base: Any, head: Any, line: str | None) -> None:
    assert usage_line(base, head, "base") == line


def test_the_tokens_line_says_what_the_prompt_cache_served_with_the_skill() -> None:
    head = usage(400, 1640)
    head["withSkill"] |= {"cacheReadTokens": 1200.0, "cacheWriteTokens": 40.5}
    assert usage_line(None, head, "base") == (
        "Tokens: the skill adds +1,240 input tokens per answer (not recorded at base) · "
        "with the skill, of its input per answer: 1,200 cache read, 40 cache write"
    )
    head["withSkill"] |= {"cacheWriteTokens": 0}  # control: a zero count says nothing
    assert usage_line(None, head, "base").endswith("per answer: 1,200 cache read")


def comparison(base: Any, head: Any) -> Comparison:
    x = LineChange("m", "s1", "Uses it", True, COMPARED, (1, 5), (0, 5), (5, 5), newcombe(5, 5, 1, 5), None)
    change = SkillChange("demo", COMPARED, (x,), newcombe(5, 5, 1, 5), newcombe(0, 5, 1, 5), True,
                         base_usage=base, head_usage=head)  # fmt: skip
    new = SkillChange("fresh", SKILL_NEW, (), None, newcombe(0, 5, 5, 5), True, head_usage=usage(10, 20))
    return Comparison("abc", "main at abc1234 (merge base)", {"demo": change, "fresh": new})


def test_the_comment_the_check_run_and_the_terminal_show_it() -> None:
    c = comparison(usage(400, 1380, 0.002, 0.005), usage(400, 1640, 0.002, 0.006))
    view = GateView("verify", "pass", "Result: pass", skills=(SkillView("demo", True), SkillView("fresh", True)),
                    comparison=c)  # fmt: skip
    body = render(view)
    # Markdown: the dollar is escaped, so two of them cannot open GitHub's math
    expected = (
        r"Tokens: the skill adds +1,240 input tokens per answer (base: +980; this PR: +260) · "
        r"cost +\$0.0040 per answer (+\$0.0010)"
    )
    assert f"\n{expected}\n" in body
    assert "\nTokens: the skill adds +10 input tokens per answer (not recorded at base)\n" in body
    assert expected in check_run.summary(view)
    lines = comparison_lines(c)
    at = lines.index(next(x for x in lines if x.startswith("  demo: ")))
    assert lines[at + 1] == (
        "    Tokens: the skill adds +1,240 input tokens per answer (base: +980; this branch: +260) · "
        "cost +$0.0040 per answer (+$0.0010)"
    )
    assert lines[at + 2].startswith('    ▼ s1 / m "Uses it" (critical): 100% (5/5) → 20% (1/5), -80pp (')
    assert lines[at + 3 :] == [
        "  fresh: new skill (the base does not have it) · vs no skill: " + lines[at + 3].split(" · vs no skill: ")[1],
        "    Tokens: the skill adds +10 input tokens per answer (not recorded at base)",
    ]
    # no usage on either side: no tokens line anywhere
    bare = comparison(None, None)._replace(skills={"demo": comparison(None, None).skills["demo"]})
    assert "Tokens:" not in render(view._replace(comparison=bare)) and not any(
        "Tokens" in x for x in comparison_lines(bare)
    )
