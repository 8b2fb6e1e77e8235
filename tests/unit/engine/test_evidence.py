"""grader.evidence: a quote with every verdict, checked against what the judge was shown; under
`required` a YES without found evidence counts as NO (with the `reported` control); the reference's
template and reply parsing untouched. Scripted judges, in-process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.support.engine import Scripted, engine, quoted, scenario, settings, skill, verdicts
from tests.unit.project.projectdir import ProjectDir, judge

from skill_be.engine.calls import Model
from skill_be.engine.prompts import CLOSING, DEFAULT_GRADER_RULES, EVIDENCE_CLOSING, GENERIC_GRADER_RULES, grader_prompt
from skill_be.engine.runner import SkillRun
from skill_be.engine.verdicts import Unparseable, parse_verdicts, parse_with_evidence, quote_span
from skill_be.errors import ConfigError
from skill_be.project.config import load_config
from skill_be.reports.evidence import evidence_lines, evidence_view, marked
from skill_be.reports.summary import _grading
from skill_be.results.summary_models import OutputSummary
from skill_be.wiring.assembly import engine_settings

ANSWER = "Split it with allocate(10,\n   [1, 1, 1]) and check the SUM is 10."
CRITERIA = ("Uses allocate", "Checks the sum")


def run(reply: str, evidence: str | None, gradings: int = 1) -> SkillRun:
    grader = Scripted(lambda prompt, n: reply)
    e = engine(
        [Model("m", Scripted(lambda p, n: ANSWER))], Model("g", grader), settings(gradings=gradings, evidence=evidence)
    )
    return asyncio.run(e.run_skill(skill(scenarios=[scenario("split", CRITERIA)]), 0))


def test_the_reference_template_and_parsing_are_unchanged() -> None:
    # The fixed strings of the reference's closing paragraph, and its prompt with no evidence asked.
    assert CLOSING.startswith("Finish your reply with a line that reads exactly `VERDICTS:`")
    prompt = grader_prompt(None, ["c"], "a")
    assert prompt.startswith(DEFAULT_GRADER_RULES) and prompt.endswith(CLOSING.format(n=1))
    assert "quote" not in prompt
    assert parse_verdicts("VERDICTS:\n1: YES\n2: NO", 2) == [True, False]
    # a reference-format judge under the default settings: no evidence anywhere, verdicts as today
    out = run(verdicts(True, False), None)
    assert all(o.verdicts == [True, False] for o in out.outputs)
    assert all(g.quotes is None and "evidence" not in _grading(g) for o in out.outputs for g in o.gradings)
    assert evidence_lines(CRITERIA, out.outputs) == []


def test_the_evidence_prompt_asks_for_a_quote_per_verdict() -> None:
    prompt = grader_prompt(GENERIC_GRADER_RULES, CRITERIA, ANSWER, evidence=True)
    assert prompt.endswith(EVIDENCE_CLOSING.format(n=2)) and '`<number>: YES "<quote>"`' in prompt


def test_quotes_are_read_and_a_quoted_verdict_word_is_not_a_verdict() -> None:
    said, quotes = parse_with_evidence('VERDICTS:\n1: YES "it says 2: no here"\n2: NO ""\n', 2)
    assert said == [True, False] and quotes == ["it says 2: no here", None]
    with pytest.raises(Unparseable):
        parse_with_evidence("no block", 2)


def test_a_quote_is_found_with_whitespace_and_case_folded() -> None:
    assert quote_span(ANSWER, "allocate(10, [1, 1, 1])") is not None
    assert quote_span(ANSWER, "check the sum") is not None
    assert quote_span(ANSWER, "uses Math.round") is None and quote_span(ANSWER, "") is None


def test_a_judge_that_quotes_the_answer_has_its_evidence_found() -> None:
    out = run(quoted((True, "allocate(10, [1, 1, 1])"), (True, "check the sum is 10")), "reported")
    for o in out.outputs:
        assert o.verdicts == [True, True]
        g = o.gradings[0]
        assert g.found == [True, True] and g.said == [True, True]
        assert _grading(g)["evidence"] == [
            {"said": True, "quote": "allocate(10, [1, 1, 1])", "found": True},
            {"said": True, "quote": "check the sum is 10", "found": True},
        ]
    lines = evidence_lines(CRITERIA, out.outputs)
    assert lines[1].startswith("Evidence (") and len(lines) == 2 + 2 * 2
    assert "*Uses allocate*: **YES** (1 of 1 gradings YES) — `allocate(10, [1, 1, 1])`" in lines[2]
    assert "evidence not found" not in "\n".join(lines)


def test_an_invented_quote_is_flagged_and_counts_only_under_required() -> None:
    reply = quoted((True, "uses allocateEvenly(10)"), (True, "check the sum"))
    shown = run(reply, "reported")  # the control: reported only shows it
    strict = run(reply, "required")
    for o in shown.outputs:
        assert o.verdicts == [True, True] and o.gradings[0].found == [False, True]
        assert not any("evidence: required" in n for n in o.notes)
    assert "`uses allocateEvenly(10)` (evidence not found)" in "\n".join(evidence_lines(CRITERIA, shown.outputs))
    for o in strict.outputs:
        assert o.verdicts == [False, True] and o.gradings[0].said == [True, True]
        assert any("criterion 1: YES without evidence found" in n for n in o.notes)
    assert all(s.with_skill == 0 for s in strict.scores if s.line == "Uses allocate")
    assert all(s.with_skill == 100 for s in shown.scores if s.line == "Uses allocate")


def test_a_reference_format_reply_under_required_has_no_evidence() -> None:
    out = run(verdicts(True, True), "required")
    assert all(o.verdicts == [False, False] for o in out.outputs)
    assert "(no quote)" in "\n".join(evidence_lines(CRITERIA, out.outputs))


def test_the_html_view_marks_found_quotes_and_escapes_the_rest() -> None:
    page = marked("a <b> allocate(10) and more", ["ALLOCATE(10)", "nowhere"])
    assert page == "a &lt;b&gt; <mark>allocate(10)</mark> and more"
    out = run(quoted((True, "allocate(10, [1, 1, 1])"), (False, "invented")), "reported")
    o = out.outputs[0]
    doc = {"rep": 1, "arm": "with-skill", "verdicts": o.verdicts, "gradings": [_grading(g) for g in o.gradings]}
    view = evidence_view(CRITERIA, OutputSummary.model_validate(doc), ANSWER)
    assert view is not None and view["rows"][1]["quotes"] == [{"quote": "invented", "found": False}]
    assert "<mark>allocate(10,\n   [1, 1, 1])</mark>" in view["marked"]


def test_the_config_keys(tmp_path: Path) -> None:
    def config(lines: str) -> ProjectDir:
        p = ProjectDir(tmp_path / str(len(list(tmp_path.iterdir()))))
        p.config.write_text(p.config.read_text().replace("  run: ./grader.sh\n", f"  run: ./grader.sh\n{lines}"))
        p.skill("money", [judge()])
        return p

    plain = load_config(config("").config)
    assert plain.grader_evidence is None and engine_settings(plain).evidence is None
    ev = load_config(config("  template: evidence\n").config)
    assert ev.grader_evidence == "reported" and engine_settings(ev).grader_rules == GENERIC_GRADER_RULES
    req = load_config(config("  template: evidence\n  evidence: required\n").config)
    assert req.grader_evidence == "required" and "evidence" not in req.grader.settings
    code = load_config(config("  evidence: required\n").config)  # the code rules, with quotes asked
    assert code.grader_evidence == "required" and engine_settings(code).grader_rules is None
    with pytest.raises(ConfigError, match=r"grader\.evidence: must be reported .* or required .*, not 'always'"):
        load_config(config("  evidence: always\n").config)
