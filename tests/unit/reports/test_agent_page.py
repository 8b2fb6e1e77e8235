"""An agent rep on results.html and in the viewer: its transcript (tool calls with their input, results
shortened behind "show all", the final answer, the skills offered and loaded) and its diff (added and
removed lines styled, a cap that says what it cut and links the whole file), folded and escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from skill_be.commands.open_server import answer
from skill_be.reports.agent import DIFF_LINES, RESULT_SHOWN
from skill_be.reports.html import render_html
from skill_be.results.run_pages import AgentFiles, agent_inputs, page_inputs, read_entry
from skill_be.results.summary_file import read_summary

RUN = Path(__file__).parent / "runs" / "agent"
STEM = "greet/greet-file/fake-model/rep-1-with-skill"
HOSTILE = "<script>alert(1)</script></details></pre><details open><summary>forged"


def page(**files: AgentFiles) -> str:
    entry = read_entry(RUN)
    assert entry.doc is not None
    texts, replies = page_inputs(RUN, entry.doc)
    agents = agent_inputs(RUN, entry.doc) | files
    return render_html(read_summary(RUN / "summary.json"), texts, replies, agents=agents)


def transcript(**over: object) -> dict[str, object]:
    doc = json.loads((RUN / f"{STEM}.transcript.json").read_text(encoding="utf-8"))
    return {**doc, **over}


def injected(html: str) -> bool:
    """Markup that did not come from the page: a script, a forged <summary>, <details> that do not pair up."""
    return "<script" in html or "<summary>forged" in html or html.count("<details") != html.count("</details>")


def test_the_transcript_and_the_diff_are_shown_folded() -> None:
    html = page()
    assert html.count('<details class="transcript">') == 4 and html.count('<details class="diff">') == 4
    assert '<p class="small">Skills offered: greet · loaded: greet (turn 1)</p>' in html
    assert "<strong>read</strong>" in html and "&#34;path&#34;: &#34;.fake/skills/greet/SKILL.md&#34;" in html
    assert '<pre class="final">I wrote answer.txt</pre>' in html
    assert '<span class="add">+loaded-yes</span>' in html and '<span class="file">+++ b/answer.txt</span>' in html
    assert "skill loaded (turn 1)" in html and "skill not loaded" in html


def test_a_hostile_transcript_and_diff_render_as_text() -> None:
    calls = [{"name": HOSTILE, "arguments": HOSTILE, "result": HOSTILE, "isError": True, "turn": 1}]
    bad = transcript(finalMessage=HOSTILE, toolCalls=calls, skillsOffered=[HOSTILE], error=HOSTILE)
    html = page(**{STEM: AgentFiles(bad, f"+{HOSTILE}\n-{HOSTILE}\n")})
    assert not injected(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/details&gt;" in html
    assert '<span class="del">-&lt;script&gt;' in html
    # control: the same page with one escape undone is caught
    assert injected(html.replace("&lt;script&gt;", "<script>", 1))
    assert injected(html.replace("&lt;/details&gt;", "</details>", 1))


def test_a_long_result_is_shortened_with_show_all() -> None:
    long = "r" * (RESULT_SHOWN + 250)
    calls = [{"name": "bash", "arguments": "{}", "result": long, "isError": False, "turn": 1}]
    html = page(**{STEM: AgentFiles(transcript(toolCalls=calls), "")})
    assert f'<pre class="result">{"r" * RESULT_SHOWN}</pre>' in html
    assert "show all (250 more characters)" in html and f'<pre class="result">{long}</pre>' in html
    assert '<p class="muted small">The agent changed no file.</p>' in html


def test_a_huge_diff_is_cut_and_says_how_much_with_a_link() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1,1000 +1,1000 @@\n" + "".join(f"-old {i}\n+new {i}\n" for i in range(500))
    html = page(**{STEM: AgentFiles(transcript(), diff)})
    total = len(diff.splitlines())
    assert f"{total - DIFF_LINES} of {total} lines not shown: " in html
    assert f'<a href="{STEM}.diff">the whole diff</a>' in html
    assert "+new 197" in html and "+new 198" not in html  # 3 header lines and 397 of the rest
    assert '<summary>diff: <span class="pass">+500</span> <span class="fail">−500</span> lines</summary>' in html


def test_the_viewer_shows_them_for_a_run_without_its_page(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(RUN, root / "2026-12-07T23-30-06-489Z")
    status, _, body = answer(root, "/2026-12-07T23-30-06-489Z/results.html")
    assert status == 200
    html = body.decode()
    assert '<details class="transcript">' in html and '<span class="add">+loaded-yes</span>' in html
    # control: without the files beside it, the rep keeps its numbers and links only
    for f in (root / "2026-12-07T23-30-06-489Z").rglob("rep-*.transcript.json"):
        f.unlink()
    for f in (root / "2026-12-07T23-30-06-489Z").rglob("rep-*.diff"):
        f.unlink()
    html = answer(root, "/2026-12-07T23-30-06-489Z/results.html")[2].decode()
    assert '<details class="transcript">' not in html and '<details class="diff">' not in html
    assert "transcript</a> · <a" in html


def test_agent_inputs_read_only_inside_the_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    (tmp_path / "outside.diff").write_text("+secret\n")
    (run / f"{STEM}.diff").unlink()
    (run / f"{STEM}.diff").symlink_to(tmp_path / "outside.diff")
    (run / f"{STEM}.transcript.json").write_text("[1, 2]")  # not an object: left out
    entry = read_entry(run)
    assert entry.doc is not None
    got = agent_inputs(run, entry.doc)[STEM]
    assert got.diff is None and got.transcript is None
    assert (
        agent_inputs(run, entry.doc)[STEM.replace("rep-1", "rep-2")].diff
        == "--- /dev/null\n+++ b/answer.txt\n@@ -0,0 +1 @@\n+loaded-yes\n"
    )
