"""results.html is the same page, byte for byte, for the same run: each run folder under runs/ (real
runs' summary.json, answers, grader replies, transcripts and diffs) and each summary fixture of
tests/fixtures/summary/ renders to its page under expected/, as the viewer reads them back.
`python tests/unit/reports/test_html_golden.py` writes expected/ again (after a change meant to show)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skill_be import __version__
from skill_be.reports.html import render_html
from skill_be.results.run_pages import agent_inputs, page_inputs, read_entry
from skill_be.results.summary_file import read_summary

HERE = Path(__file__).parent
RUNS = sorted(p for p in (HERE / "runs").iterdir() if p.is_dir())
FIXTURES = Path(__file__).parents[2] / "fixtures" / "summary"
SUMMARIES = sorted(p for p in FIXTURES.glob("*.json") if p.name != "shard_manifest.json")
EXPECTED = HERE / "expected"
VERSION = "skill-be 0.0.0-golden"  # the page names skill-be's version: the goldens hold a fixed one


def page_of(path: Path) -> str:
    """The page the viewer shows for a run folder (or a lone summary.json), with the version fixed."""
    if path.is_dir():
        entry = read_entry(path)
        assert entry.doc is not None, entry.problem
        texts, replies = page_inputs(path, entry.doc)
        page = render_html(read_summary(path / "summary.json"), texts, replies, agents=agent_inputs(path, entry.doc))
    else:
        page = render_html(read_summary(path), {}, {})
    return page.replace(f"skill-be {__version__}", VERSION)


def expected_of(path: Path) -> Path:
    return EXPECTED / f"{path.stem if path.is_file() else path.name}.html"


@pytest.mark.parametrize("path", RUNS + SUMMARIES, ids=lambda p: p.stem)
def test_the_page_is_the_same_for_the_same_run(path: Path) -> None:
    assert page_of(path) == expected_of(path).read_text(encoding="utf-8")


def test_a_changed_run_changes_the_page(tmp_path: Path) -> None:
    """Control: one answer's word changed in a copy of a run folder gives another page."""
    import shutil

    run = tmp_path / "judges"
    shutil.copytree(HERE / "runs" / "judges", run)
    answer = next(p for p in sorted(run.rglob("rep-1-with-skill.md")))
    answer.write_text(answer.read_text(encoding="utf-8") + " changed\n", encoding="utf-8")
    assert page_of(run) != expected_of(HERE / "runs" / "judges").read_text(encoding="utf-8")


if __name__ == "__main__":
    EXPECTED.mkdir(exist_ok=True)
    for p in RUNS + SUMMARIES:
        expected_of(p).write_text(page_of(p), encoding="utf-8")
        print(expected_of(p), file=sys.stderr)
