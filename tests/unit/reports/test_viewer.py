"""`skill-be open`'s index page (reports/viewer.py) from sample summaries, and what it reads back
from a run folder (results/run_pages.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from skill_be.reports import viewer
from skill_be.results.run_pages import RunEntry, page_inputs, read_entry


def skill(estimate: float, low: float, high: float, ready: bool = True, **more: Any) -> dict[str, Any]:
    line = {"line": "Uses allocate", "counts": {"baseline": [1, 4], "withSkill": [3, 4]}}
    return {
        "ready": ready,
        "effect": {"estimate": estimate, "low": low, "high": high, "label": "better"},
        "scenarios": [{"id": "split", "models": {"m1": {"lines": [line]}}}],
        **more,
    }


def doc(started: str, **skills: dict[str, Any]) -> dict[str, Any]:
    return {"startedAt": started, "skills": skills}


RUNS = [
    RunEntry("2026-12-01T10-00-00-000Z", doc("2026-12-01T10:00:00.000+00:00", money=skill(20, -5, 45))),
    RunEntry("2026-12-02T10-00-00-000Z", None, "summary.json: line 3:1: not JSON; delete that run folder"),
    RunEntry(
        "2026-12-03T10-00-00-000Z",
        {**doc("2026-12-03T10:00:00.123+00:00", money=skill(-30, -60, -2, ready=False)), "commit": "abc1234"},
    ),
    RunEntry(
        "2026-12-04T10-00-00-000Z",
        doc("2026-12-04T10:00:00.000+00:00", money=skill(0, 0, 0, ready=False, verdict="ERROR"), dates=skill(5, 1, 9)),
    ),
]


def rows(page: str) -> list[str]:
    return re.findall(r'<tr class="run[^"]*">.*?</tr>', page, re.S)


def test_the_index_lists_every_run_newest_first_with_its_verdicts_and_effects() -> None:
    page = viewer.index_page(RUNS, ".skill-be/results")
    got = rows(page)
    assert [re.search(r"2026-12-0\d", r).group(0) for r in got] == [  # type: ignore[union-attr]
        "2026-12-04",
        "2026-12-03",
        "2026-12-02",
        "2026-12-01",
    ]
    assert '<span class="error">ERROR</span>' in got[0] and "dates" in got[0]
    assert '<span class="blocked">NOT READY</span>' in got[1] and "-30pp [-60, -2] better" in got[1]
    assert '<code title="abc1234">abc1234</code>' in got[1] and "2026-12-03 10:00:00+00:00" in got[1]
    assert "unreadable: summary.json: line 3:1: not JSON" in got[2] and "run-link" not in got[2]
    assert '<span class="ready">READY</span>' in got[3] and "+20pp [-5, +45] better" in got[3]
    assert '<a class="run-link" href="2026-12-01T10-00-00-000Z/results.html">' in got[3]
    assert "<td>—</td>" in got[3]  # no commit recorded


def test_a_chart_per_skill_with_a_point_per_run_that_has_it() -> None:
    page = viewer.index_page(RUNS, "r")
    charts = re.findall(r'<figure class="chart" data-skill="([^"]+)">(.*?)</figure>', page, re.S)
    assert [name for name, _ in charts] == ["money", "dates"]
    money = dict(charts)["money"]
    effect = re.search(r'<svg class="effect".*?</svg>', money, re.S).group(0)  # type: ignore[union-attr]
    points = re.findall(r'<circle class="point" cx="([\d.]+)" cy="([\d.]+)"', effect)
    assert len(points) == 3  # the unreadable run has no point
    xs = [float(x) for x, _ in points]
    assert xs == sorted(xs)  # oldest left
    ys = [float(y) for _, y in points]
    assert abs(ys[0] - viewer._y(20, -100, 100)) < 0.1 and abs(ys[1] - viewer._y(-30, -100, 100)) < 0.1
    assert ys[1] > ys[0]  # a lower effect is drawn lower
    assert effect.count('class="interval"') == 3
    assert "2026-12-03T10-00-00-000Z at abc1234: -30pp [-60, -2] better" in effect  # the point's tooltip
    labels = re.findall(r'<text class="run"[^>]*>([^<]+)</text>', effect)
    assert labels == ["12-01 10:00:00", "12-02 10:00:00", "12-03 10:00:00", "12-04 10:00:00"]  # a slot per run
    assert len(re.findall(r'<circle class="point"', dict(charts)["dates"])) == 1


def test_at_most_eight_run_labels_under_a_chart() -> None:
    runs = [f"2026-12-{d:02d}T10-00-00-000Z" for d in range(1, 21)]
    labels = re.findall(r'<text class="run"', viewer.effect_chart("s", [None] * 20, runs))
    assert len(labels) == 7  # every third of 20
    assert viewer.run_label("my-run") == "my-run"


def test_the_pass_rate_chart_draws_both_arms() -> None:
    s = skill(20, -5, 45)
    assert viewer.pass_rates(s) == (25.0, 75.0)
    chart = viewer.rates_chart("money", viewer.skill_points([RUNS[0], RUNS[2]], "money"))
    assert chart.count('<circle class="baseline"') == 2 and chart.count('<circle class="with-skill"') == 2
    assert viewer.pass_rates({"scenarios": []}) is None


def test_one_run_is_one_point_in_the_middle() -> None:
    chart = viewer.effect_chart("money", viewer.skill_points(RUNS[:1], "money"))
    (x,) = re.findall(r'<circle class="point" cx="([\d.]+)"', chart)
    assert abs(float(x) - (viewer.LEFT + (viewer.W - viewer.LEFT - viewer.RIGHT) / 2)) < 0.1
    assert "<polyline" not in chart


def test_text_from_the_files_is_escaped_and_the_page_loads_nothing() -> None:
    hostile = RunEntry('x"><script>alert(1)</script>', doc("<b>", **{"<img src=x>": skill(1, 0, 2)}))
    broken = RunEntry("y", None, "<script>bad()</script>")
    page = viewer.index_page([hostile, broken], "<folder>")
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert 'href="x%22%3E%3Cscript%3Ealert%281%29%3C/script%3E/results.html"' in page
    assert "http" not in page.lower().replace("http-equiv", "")  # no address: nothing to load
    assert "default-src 'none'" in page


def test_a_served_run_page_gets_one_link_back_to_the_index() -> None:
    page = "<html><body><h1>x</h1><body></html>"
    linked = viewer.with_index_link(page)
    assert linked.count(viewer.INDEX_LINK) == 1 and linked.index(viewer.INDEX_LINK) > linked.index("<body>")


def test_an_empty_index_says_so() -> None:
    assert "No run has a skill to chart." in viewer.index_page([], "r")


def test_a_broken_summary_is_an_unreadable_entry_never_an_error(tmp_path: Path) -> None:
    run = tmp_path / "2026-12-01T10-00-00-000Z"
    run.mkdir()
    (run / "summary.json").write_text('{"schema": 1,')
    entry = read_entry(run)
    assert entry.doc is None and "summary.json" in entry.problem
    (run / "summary.json").write_text(json.dumps({"schema": 1, "skills": {}}))
    entry = read_entry(run)
    assert entry.doc is None and "skillBeVersion" in entry.problem  # valid JSON, not a summary


def test_page_inputs_read_only_files_inside_the_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "r1"
    (run / "money").mkdir(parents=True)
    (run / "money" / "rep-1-baseline.md").write_text("inside answer\n")
    (run / "money" / "rep-1-baseline.grading-1.md").write_text("VERDICTS:\n1: YES\n")
    (tmp_path / "runs" / "secret.md").write_text("outside\n")
    (tmp_path / "runs" / "secret.grading-1.md").write_text("outside reply\n")
    (run / "money" / "link.md").symlink_to(tmp_path / "runs" / "secret.md")
    outputs = [
        {"file": "money/rep-1-baseline.md", "gradings": [{"k": 1}]},
        {"file": "../secret.md", "gradings": [{"k": 1}]},
        {"file": "money/link.md", "gradings": []},
    ]
    d = {"skills": {"money": {"scenarios": [{"models": {"m1": {"outputs": outputs}}}]}}}
    texts, replies = page_inputs(run, d)
    assert texts == {"money/rep-1-baseline.md": "inside answer"}  # control: a file inside is read
    assert replies["money/rep-1-baseline.md"] == ["VERDICTS:\n1: YES"]
    assert replies["../secret.md"] == [""]


def test_an_unchanged_summary_is_not_read_again(tmp_path: Path, monkeypatch: Any) -> None:
    import skill_be.results.run_pages as run_pages

    for name in ("r1", "r2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text("{broken")
    reads: list[str] = []
    real = run_pages.read_entry
    monkeypatch.setattr(run_pages, "read_entry", lambda p: reads.append(p.name) or real(p))
    seen: run_pages.Seen = {}
    assert [e.name for e in run_pages.run_entries(tmp_path, seen)] == ["r1", "r2"]
    (tmp_path / "r2" / "results.html").write_text("<p>")
    again = run_pages.run_entries(tmp_path, seen)
    assert reads == ["r1", "r2"] and [e.has_page for e in again] == [False, True]
    (tmp_path / "r1" / "summary.json").write_text("{broken again")  # control: a changed one is read again
    run_pages.run_entries(tmp_path, seen)
    assert reads == ["r1", "r2", "r1"]
