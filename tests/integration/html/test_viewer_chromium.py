"""`skill-be open` in Debian's headless Chromium (.ci/steps/60-chromium.sh installs it), on a results
folder with three real runs: the index lists three runs, each skill's chart has three points, a run's
link opens its page and that page's link leads back; nothing on the index overflows its box.
Screenshots of the index, light and dark, go to .ci/artifacts/html/ for a person to look at."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
from tests.integration.html.test_results_page_chromium import ARTIFACTS, DARK, WIDTHS, browse, overflows
from tests.support.three_runs import three_runs

from skill_be.reports.viewer import index_page
from skill_be.results.run_pages import run_entries

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return three_runs(tmp_path_factory.mktemp("viewer") / "project")


@pytest.fixture(scope="module")
def url(results: Path) -> Iterator[str]:
    """`skill-be open --no-browser` on the project: the address it prints."""
    p = subprocess.Popen(
        [sys.executable, "-m", "skill_be", "open", "--no-browser"],
        cwd=results.parents[1],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    assert p.stdout is not None
    first = p.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", first)
    assert found, first + (p.stderr.read() if p.stderr else "")
    try:
        yield found.group(0)
    finally:
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
    assert p.returncode == 0


def dom(url: str) -> str:
    p = browse("--virtual-time-budget=2000", "--dump-dom", url)
    assert "<body" in p.stdout, p.stderr[-2000:]
    return p.stdout


def test_the_index_lists_three_runs_with_three_points_and_a_run_opens(results: Path, url: str) -> None:
    index = dom(url)
    rows = re.findall(r'<tr class="run">.*?</tr>', index, re.S)
    assert len(rows) == 3
    effect = re.search(r'<svg class="effect".*?</svg>', index, re.S)
    assert effect and effect.group(0).count('<circle class="point"') == 3
    newest = sorted(p.name for p in results.iterdir())[-1]
    href = re.search(r'<a class="run-link" href="([^"]+)"', rows[0])
    assert href and href.group(1) == f"{newest}/results.html"
    run_page = dom(urljoin(url, href.group(1)))
    assert "<h1>" in run_page and "money" in run_page and "allocate" in run_page  # the run's own page
    back = re.search(r'<p class="viewer-nav"><a href="([^"]+)">', run_page)
    assert back and urljoin(urljoin(url, href.group(1)), back.group(1)) == url
    oldest = re.search(r'<a class="run-link" href="([^"]+)"', rows[2])
    assert oldest  # a run without results.html: its page rendered from summary.json
    assert not (results / oldest.group(1)).exists()
    old_page = dom(urljoin(url, oldest.group(1)))
    assert "allocate" in old_page
    for shown in (run_page, old_page):  # a blocked run opens on what blocks, before the overview
        ready = '<h1><span class="verdict-ready">READY' in shown
        assert ready or shown.index('id="what-blocks"') < shown.index("<h2>Overview</h2>"), shown[:3000]
        assert not ready or 'id="what-blocks"' not in shown
    assert any('id="what-blocks"' in shown for shown in (run_page, old_page))  # the fixture has a blocked run


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_on_the_index_overflows_its_box(results: Path, tmp_path: Path, width: int) -> None:
    page = index_page(run_entries(results), ".skill-be/results")
    assert overflows(page, tmp_path, width) == []


def test_screenshots_of_the_index(url: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        for scheme, extra in (("light", ()), ("dark", DARK)):
            shot = ARTIFACTS / f"runs-index-{scheme}-{width}.png"
            shot.unlink(missing_ok=True)
            p = browse(*extra, f"--window-size={width},1200", f"--screenshot={shot}", url)
            assert shot.is_file() and shot.stat().st_size > 10_000, p.stderr[-2000:]
