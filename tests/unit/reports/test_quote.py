"""Text from the answer's side stays data in every report format (issue 23, item 3).

An answer that reaches the test runner can write any text into an error, a fatal event, a test's
message or a test's name. Each format is rendered with such a text and read back the way a reader
sees it (Markdown through a CommonMark + GFM-tables renderer, HTML and JUnit parsed): no heading,
table row, list item, HTML element or verdict line of the answer's making. Each attack has a control
that renders the same text with the quoting switched off and shows the forgery there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from markdown_it import MarkdownIt

from skill_be.codetests.outcome import TestResult, TestRun
from skill_be.engine.gate import Gate, LineScore, ScenarioLines
from skill_be.engine.observations import Output
from skill_be.engine.runner import SkillRun
from skill_be.project.evals import EvalFile, Scenario
from skill_be.project.loader import Skill
from skill_be.project.skills import SkillDoc
from skill_be.reports import check_run, markdown, pr_comment, quote
from skill_be.reports import strings as s
from skill_be.reports.html import render_html
from skill_be.reports.junit import junit_xml
from skill_be.reports.markdown import Header, skill_report
from skill_be.reports.pr_comment import GateView, ModelTable, ProblemView, Row, SkillView
from skill_be.results.summary_file import typed_skills

FORGED_HEADING = "## 2026-12-01 — demo benchmark Release Gate"
HOSTILE = (
    "boom\n\n"
    f"{FORGED_HEADING}\n\n{s.READY_LINE}\n"
    "| forged | row |\n|---|---|\n| a | b |\n"
    "<details open><summary>hidden</summary>\n"
    "```\n`tick` ``two`` ```three```\n"
    "# h1\r\n- item\u2028### sep\u2029"
    '<img src="http://127.0.0.1:9/pixel"> [link](http://127.0.0.1:9/) **bold** & &amp; \\ ~~s~~ \u202eevil'
)
HOSTILE_TEST = "adds\n## ✅ READY\n| x | y |"


def md_html(text: str) -> str:
    """How a Markdown reader sees it: CommonMark with GitHub's tables (raw HTML passes, as on GitHub)."""
    return MarkdownIt("commonmark").enable("table").enable("strikethrough").render(text)


def headings(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h\d>(.*?)</h\d>", html, re.S)]


def _run() -> SkillRun:
    sc = Scenario("s1", "Add two numbers.", True, ("Uses a function",), (("add", "adds"),))
    test_line = s.TEST_PREFIX + HOSTILE_TEST
    doc = SkillDoc("x", "demo", None, None, ())
    skill = Skill("demo", Path("skills/demo"), Path("skills/demo/SKILL.md"), doc, Path("evals/demo.json"),
                  EvalFile(Path("evals/demo.json"), (sc,)), {}, None)  # fmt: skip
    tests = TestRun((TestResult(HOSTILE_TEST, False, HOSTILE),), error=HOSTILE)
    out = Output("s1", "m", 1, "with-skill", errors=[HOSTILE], notes=[HOSTILE], tests=tests, text="x")
    scores = [
        LineScore("s1", "Uses a function", "criterion", "m", 100, 0, -100, 1, 1, 0),
        LineScore("s1", test_line, "test", "m", 100, 0, -100, 1, 1, 0),
    ]
    gate = Gate(False, (("s1", test_line),), (scores[1],), 1, True, True)
    return SkillRun(skill, [ScenarioLines(sc, (HOSTILE_TEST,))], [out], scores, gate, 1.0)


HEADER = Header("2026-12-01", ["cmd:m"], ["m"], 1, 1, "g", "cmd")


@pytest.fixture
def quoting_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The control: every quoting function hands the text through as it came."""
    same = lambda text, *a, **k: str(text)  # noqa: E731
    for mod in (markdown, pr_comment, check_run):
        for name in ("md_code", "md_text", "plain", "html_text"):
            if hasattr(mod, name):
                monkeypatch.setattr(mod, name, same)
    monkeypatch.setattr(pr_comment, "md_fence", lambda lines, info="text": ["```" + info, *map(str, lines), "```"])
    import skill_be.reports.gate as gate_words

    monkeypatch.setattr(gate_words, "md_text", same)
    yield


def _assert_no_forgery(html: str) -> None:
    assert FORGED_HEADING.removeprefix("## ") not in headings(html)
    assert not any("READY" in h and "NOT READY" not in h for h in headings(html)), headings(html)
    assert "<details open><summary>hidden" not in html
    assert "<img" not in html and 'href="http://127.0.0.1:9/"' not in html
    assert "<td>forged</td>" not in html and "<th>forged</th>" not in html
    assert "<h1>" not in html


def test_markdown_report_quotes_the_answers_text() -> None:
    report = skill_report(_run(), HEADER)
    html = md_html(report)
    _assert_no_forgery(html)
    assert headings(html) == ["2026-12-01 — demo benchmark", "Scenario: s1 (critical)", "Release Gate"]
    # the reader still sees the text: one line, its breaks marked
    assert "boom ⏎  ⏎ ## 2026-12-01" in html
    assert s.READY_LINE not in report.split("\n")
    assert report.split("\n").count(s.NOT_READY_LINE) == 1
    # the table keeps its two rows, the hostile test name inside its own cell
    assert html.count("<tr>") == 3


def test_markdown_report_control_forges_the_heading(quoting_off: None) -> None:
    html = md_html(skill_report(_run(), HEADER))
    assert FORGED_HEADING.removeprefix("## ") in headings(html)
    assert "<details open><summary>hidden" in html


def _view() -> GateView:
    rows = (Row("s1", s.TEST_PREFIX + HOSTILE_TEST, True, 100, 0, "1/1", "0/1"),)
    skill = SkillView("demo", False, (f'regression: s1 / m — "{HOSTILE}"',), tables=(ModelTable("m", rows),),
                      blocking=(("s1", HOSTILE),), eval_file="evals/demo.json")  # fmt: skip
    return GateView(
        command="run",
        result="error",
        result_line=HOSTILE,
        skills=(skill,),
        problems=(ProblemView("typecheck", HOSTILE, "skills/demo/SKILL.md", 3),),
        models=(HOSTILE,),
        log=tuple(HOSTILE.split("\n")),
        working_directory="docs",
        config=HOSTILE,
    )


def test_pr_comment_and_check_run_quote_the_answers_text() -> None:
    view = _view()
    for text in (pr_comment.comment(view), check_run.summary(view)):
        html = md_html(text)
        _assert_no_forgery(html)
        assert headings(html) == ["⚠️ skill-be run in docs: error"]
        assert html.count("<tr>") == 1 + 1 + 1 + 1  # the verdict table and the model table, head and row each
    assert "\n" not in check_run.title(view)
    for a in check_run.annotation_list(view):
        assert "\n" not in a["message"] and "\n" not in a["title"]


def test_pr_comment_control_forges_the_heading(quoting_off: None) -> None:
    html = md_html(pr_comment.comment(_view()))
    assert "<details open><summary>hidden" in html
    assert FORGED_HEADING.removeprefix("## ") in headings(html)


def _summary_entry() -> dict[str, object]:
    import json

    from skill_be.reports.summary import skill_summary

    entry = skill_summary(_run(), ["m"], "fp", lambda o: None, Path("."))
    return json.loads(json.dumps(entry))  # as a reader of summary.json gets it


def test_html_page_quotes_the_answers_text() -> None:
    doc = {
        "schema": 1,
        "skillBeVersion": "0",
        "skills": {"demo": _summary_entry()},
        "models": [],
        "reps": 1,
        "gradings": 1,
    }
    page = render_html(doc, {}, {})
    assert "<details open><summary>hidden" not in page and "<img" not in page
    assert f"<h2>{FORGED_HEADING}" not in page
    assert '<code class="quoted">boom ⏎  ⏎ ## 2026-12-01' in page


def test_junit_keeps_each_error_on_one_line() -> None:
    xml = junit_xml(typed_skills({"demo": _summary_entry()}))
    root = ET.fromstring(xml)
    for el in root.iter():
        for v in el.attrib.values():
            assert "\n" not in v
    errors = [e.text or "" for e in root.iter("error")]
    assert errors and all(t.count("\n") == 0 for t in errors)
    gate = [f.text or "" for f in root.iter("failure") if f.get("type") == "gate"]
    assert gate and FORGED_HEADING not in gate[0].split("\n")


@pytest.mark.parametrize(
    "text",
    ["plain", "`", "``a``", "a | b", "x`", " ", "", "a\nb", "<b>", "```", "\\`"],
)
def test_code_span_holds_any_text(text: str) -> None:
    html = md_html("- " + quote.md_code(text))
    inner = re.findall(r"<code>(.*?)</code>", html, re.S)
    assert len(inner) == 1
    shown = inner[0].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&quot;", '"')
    assert shown.strip() == quote.one_line(text).strip()


def test_code_span_in_a_table_cell_keeps_the_row() -> None:
    html = md_html("| a | b |\n|---|---|\n| " + quote.md_code("x | y | z", table=True) + " | 2 |\n")
    assert html.count("<td>") == 2 and "<code>x | y | z</code>" in html


def test_md_text_reads_as_written() -> None:
    for text in ("[test] adds *two* numbers", "uses <b> & `x` | y ~z~ [a](b) !"):
        html = md_html(quote.md_text(text))
        plain = html.replace("<p>", "").replace("</p>", "").strip()
        assert plain.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == text


def test_fence_cannot_be_closed_from_inside() -> None:
    lines = ["a", "```", "## after", "````", "~~~"]
    html = md_html("\n".join(quote.md_fence(lines)) + "\nafter\n")
    assert headings(html) == [] and html.count("<pre>") == 1 and "<p>after</p>" in html


def test_redaction_catches_a_secret_as_the_quoting_writes_it() -> None:
    from skill_be.adapters.credentials import Redactor

    secret = "ghs_ab|cd*ef"
    view = GateView("run", "blocked", "Result: blocked", skills=(SkillView("demo", False, (f"leak {secret}",)),))
    body = pr_comment.comment(view)
    assert secret not in body  # written escaped: the plain secret alone would miss it
    assert "ghs" not in Redactor(quote.secret_forms(secret))(body)
    assert "ghs" in Redactor([secret])(body)  # the control: the plain form misses the escaped one


def test_the_redaction_marker_reads_as_written() -> None:
    assert quote.md_text("auth failed with key ***)") == "auth failed with key ***)"
    assert quote.md_text("a *b* c") == "a \\*b\\* c"  # emphasis stays escaped


def test_the_report_says_how_the_skill_was_given_per_kind_of_scenario() -> None:
    from dataclasses import replace

    from skill_be.project.agent_models import AgentScenario
    from skill_be.reports.agent import AGENT_NOTE

    one_shot = _run()
    assert s.NO_TOOLS_NOTE in skill_report(one_shot, HEADER) and AGENT_NOTE not in skill_report(one_shot, HEADER)
    agent = AgentScenario(Path("evals"), (), (), True, 3, 60, None, None, "docker", (), (), None, None)
    sl = one_shot.lines[0]
    agent_only = replace(one_shot, lines=[replace(sl, scenario=sl.scenario._replace(agent=agent))])
    report = skill_report(agent_only, HEADER)
    assert AGENT_NOTE in report and s.NO_TOOLS_NOTE not in report  # not "puts the SKILL.md in the prompt"
    both = replace(one_shot, lines=[*one_shot.lines, *agent_only.lines])
    assert s.NO_TOOLS_NOTE in skill_report(both, HEADER) and AGENT_NOTE in skill_report(both, HEADER)
