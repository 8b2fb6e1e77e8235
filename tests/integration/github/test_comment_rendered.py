"""The PR comment as a reviewer sees it: rendered to HTML by a local CommonMark + GFM-tables renderer
(markdown-it, raw HTML passed as GitHub passes it), opened in Debian's headless Chromium, with a
screenshot under .ci/artifacts/pr-comment/ for a person to look at. The DOM Chromium builds must
hold the comment's structure (its one heading, its tables and rows, its <details>), and nothing an
answer wrote may add to it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from markdown_it import MarkdownIt

from skill_be.engine.changes import COMPARED, NOT_COMPARABLE, Comparison, LineChange, SkillChange
from skill_be.engine.stats import newcombe
from skill_be.reports.pr_comment import GateView, ModelTable, Row, SkillView, comment

REPO = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO / ".ci" / "artifacts" / "pr-comment"
FORGED = "x\n\n## ✅ READY\n\n| a | b |\n|---|---|\n| c | d |\n<details open><summary>forged</summary>"
CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 900px; margin: 24px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid #d0d7de; padding: 4px 10px; }
code { background: #eff1f3; padding: 1px 4px; border-radius: 4px; font-size: 85%; }
pre { background: #f6f8fa; padding: 12px; } details { margin: 8px 0; } summary { cursor: pointer; }
"""


def view() -> GateView:
    rows = (
        Row("split", "Splits the total so the parts add up exactly", True, 67, 33, "2/3", "1/3"),
        Row("split", "[test] " + FORGED, True, 0, 100, "0/3", "3/3"),
    )
    lines = (
        LineChange("m", "split", rows[0].line, True, COMPARED, (1, 3), (2, 3), (3, 3), newcombe(3, 3, 1, 3), 14),
        LineChange("m", "split", rows[1].line, True, NOT_COMPARABLE, (3, 3), (0, 3), None, None, None, "its tests changed"),
    )  # fmt: skip
    c = Comparison("abc", "main at 1a2b3c4 (merge base)", {"money": SkillChange("money", "compared", lines)})
    reason = f'regression: split / m — "{rows[0].line}": 67% → 33% (-34pp)'
    skill = SkillView("money", False, (reason, "1 error(s): " + FORGED), tables=(ModelTable("m", rows),))
    return GateView("run", "blocked", "Result: blocked by the release gate (NOT READY: money)", skills=(skill,),
                    models=("m",), reps=3, comparison=c, log=(FORGED,))  # fmt: skip


def test_the_comment_renders_with_its_structure_and_no_forged_part(tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "chromium is not installed: run .ci/steps/60-chromium.sh (apt-get install -y chromium)"
    body = MarkdownIt("commonmark").enable("table").enable("strikethrough").render(comment(view()))
    page = tmp_path / "comment.html"
    page.write_text(f"<!doctype html><meta charset=utf-8><style>{CSS}</style><body>{body}</body>", encoding="utf-8")
    base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]
    base += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
    dom = subprocess.run([*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert re.findall(r"<h3>", html) == ["<h3>"] and "<h2>" not in html  # the one heading, no forged one
    assert html.count("<table>") == 3  # the verdicts, the lines against main, the lines against no skill
    assert html.count("<tr>") == 2 + 3 + 3  # head rows, the one skill, and each table's two lines
    assert html.count("<details") == 1 and "forged</summary>" not in html
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "comment-1280.png"
    done = subprocess.run([*base, "--window-size=1280,1400", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=90)  # fmt: skip
    assert done.returncode == 0 and shot.stat().st_size > 10_000, done.stderr[-2000:]
