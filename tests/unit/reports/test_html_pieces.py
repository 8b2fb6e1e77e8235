"""results.html's pieces: what blocks with its links, criteria by their text, the arms of a rep paired."""

from __future__ import annotations

import re
from typing import Any

from skill_be.reports.html import anchor, blocking, render_html, rep_pairs, verdict_rows
from skill_be.results.summary_models import OutputSummary, SkillSummary

RUN = {"schema": 1, "skillBeVersion": "0", "reps": 1, "gradings": 3}


def output(rep: int, arm: str, verdicts: list[bool], *gradings: list[bool]) -> dict[str, Any]:
    return {
        "rep": rep,
        "arm": arm,
        "file": f"s/sc/m1/rep-{rep}-{arm}.md",
        "error": None,
        "verdicts": verdicts,
        "gradings": [{"k": k + 1, "verdicts": g, "error": None} for k, g in enumerate(gradings)],
        "tests": None,
        "errors": [],
        "notes": [],
    }


def skill(ready: bool) -> dict[str, Any]:
    line = {"line": "Names the <b>total</b>", "kind": "criterion", "baseline": 100, "withSkill": 0, "delta": -100}
    outputs = [
        output(1, "baseline", [True, True], [True, True]),
        output(1, "with-skill", [False, True], [False, True], [False, False], [True, True]),
    ]
    return {
        "ready": ready,
        "graded": True,
        "errors": 0,
        "seconds": 1.0,
        "fingerprint": "f",
        "gate": {"zero": [], "regressions": [], "errors": 0},
        "reasons": [] if ready else ['regression: sc / m1 — "Names the <b>total</b>": 100% → 0% (-100pp)', "other"],
        "why": []
        if ready
        else [{"kind": "regression", "source": "x", "scenario": "sc", "model": "m1", "line": line["line"]}],
        "scenarios": [
            {
                "id": "sc",
                "critical": True,
                "prompt": "p",
                "criteria": ["Names the <b>total</b>", "Keeps it short"],
                "tests": [],
                "models": {"m1": {"lines": [line], "outputs": outputs}},
            }
        ],
    }


def test_each_reason_links_to_the_line_it_points_at() -> None:
    s = skill(ready=False)
    got = blocking("money", SkillSummary.model_validate(s))
    assert got[0] == {"text": s["reasons"][0], "href": "#" + anchor("money", 0, 0, 0)}
    assert got[1] == {"text": "other", "href": ""}  # no record: no link
    s["why"][0]["line"] = None  # a scenario-wide reason links to the scenario
    assert blocking("money", SkillSummary.model_validate(s))[0]["href"] == "#" + anchor("money", 0)
    s["why"][0]["scenario"] = "elsewhere"
    assert blocking("money", SkillSummary.model_validate(s))[0]["href"] == ""


def test_criteria_by_their_text_with_the_gradings_that_said_yes() -> None:
    o = output(1, "with-skill", [False, True], [False, True], [False, False], [True, True])
    o = OutputSummary.model_validate(o)
    rows = verdict_rows(["A", "B"], o)
    assert [(r["criterion"], r["verdict"], r["yes"], r["n"]) for r in rows] == [("A", False, 1, 3), ("B", True, 2, 3)]
    assert verdict_rows(["A", "B", "C"], o) == []  # verdicts that do not cover the criteria: no rows


def test_the_arms_of_a_rep_are_paired() -> None:
    pairs = rep_pairs([output(2, "with-skill", []), output(1, "baseline", []), output(2, "baseline", [])])
    assert [(p["rep"], bool(p["baseline"]), bool(p["withSkill"])) for p in pairs] == [(2, True, True), (1, True, False)]


def test_the_page_opens_on_what_blocks_and_shows_criteria_by_text() -> None:
    summary = {**RUN, "skills": {"money": skill(ready=False)}}
    page = render_html(
        summary, {"s/sc/m1/rep-1-baseline.md": "B answer", "s/sc/m1/rep-1-with-skill.md": "S answer"}, {}
    )
    blocks = page.index('<section class="blocks" id="what-blocks">')
    assert blocks < page.index("<h2>Overview</h2>")
    target = anchor("money", 0, 0, 0)
    assert (
        f'<li class="error"><a href="#{target}">regression: sc / m1 — &#34;Names the &lt;b&gt;total&lt;/b&gt;&#34;'
        in page
    )
    assert f'<tr id="{target}" class="blocking">' in page
    pair = re.search(r'<div class="rep-pair">(.*?)\n</div>', page, re.S)
    assert pair and pair.group(1).index("B answer") < pair.group(1).index("S answer")
    assert "<td>Names the &lt;b&gt;total&lt;/b&gt;</td>" in page  # the criterion's text, escaped
    assert '<td class="verdict fail">NO <span class="muted small">(1 of 3 gradings YES)</span>' in page
    ready = render_html({**RUN, "skills": {"money": skill(ready=True)}}, {}, {})
    assert "what-blocks" not in ready and 'class="blocking"' not in ready
