"""results.html gains the base column: each line's with-skill rate at the base branch and now."""

from __future__ import annotations

from tests.unit.reports.test_quote import _summary_entry

from skill_be.engine.changes import COMPARED, NOT_COMPARABLE, Comparison, LineChange, SkillChange
from skill_be.engine.stats import newcombe
from skill_be.reports.html import render_html


def test_the_page_shows_the_base_column_only_with_a_comparison() -> None:
    entry = _summary_entry()
    doc = {"schema": 1, "skillBeVersion": "0", "skills": {"demo": entry}, "models": [], "reps": 1, "gradings": 1}
    plain = render_html(doc, {}, {})
    assert "vs main" not in plain and 'class="vs-base"' not in plain
    lines = (
        LineChange("m", "s1", "Uses a function", True, COMPARED, (0, 1), (1, 1), (1, 1), newcombe(1, 1, 0, 1), 9),
        LineChange("m", "s1", "[test] x", True, NOT_COMPARABLE, (0, 1), (1, 1), None, None, None, "its tests changed"),
    )
    base = Comparison("abc", "main at abc1234 (merge base)", {"demo": SkillChange("demo", "compared", lines)})
    page = render_html(doc, {}, {}, base)
    assert "<th>vs main" in page
    assert '<td class="vs-base"><span class="">≈ 100% → 0%, -100pp [-100, +12]</span></td>' in page
    # the test line of the page is not among the base's lines: a dash
    assert '<td class="vs-base"><span class="muted">–</span></td>' in page
    assert page.count('<td class="vs-base">') == 2  # one per line of the scenario table
