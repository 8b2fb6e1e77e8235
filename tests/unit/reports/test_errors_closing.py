"""reports/errors.py: an ERROR skill's report and the closing lines, led by the cause."""

from __future__ import annotations

from skill_be.checks import CheckOutcome
from skill_be.engine.health import Fault, Health
from skill_be.reports import strings as s
from skill_be.reports.errors import EXIT_ERROR, closing_lines, error_report

ERR = Health(True, "every call of the grader failed", Fault("grader", "no VERDICTS: line"), 4, 4, 4, 4, "grader")
OFF = CheckOutcome("coverage", ("coverage: off",))


def test_the_report_leads_with_the_cause_and_its_verdict_is_error() -> None:
    report = "# money\n\n## Release Gate\n\n- **BLOCKED** (universal 0%): `x`\n\n" + s.NOT_READY_LINE
    text = error_report(report, ERR)
    first = text.splitlines()[0]
    assert first.startswith("**ERROR** — could not measure this skill: every call of the grader failed: ")
    assert "no VERDICTS: line (4x)" in first
    assert s.NOT_READY_LINE not in text.splitlines() and "BLOCKED" not in text
    assert text.splitlines()[-1].startswith("**ERROR** — every call of the grader failed")


def test_the_closing_lines_exit_3_and_lead_the_result_line_with_the_cause() -> None:
    lines, code = closing_lines({"a": True, "b": False}, {"b": ERR}, [OFF], ["x/summary.json"])
    assert code == EXIT_ERROR == 3
    assert lines[:3] == [
        "Skills:",
        "  a: READY",
        "  b: ERROR (every call of the grader failed: no VERDICTS: line (4x))",
    ]
    assert lines[-1] == "Result: error, could not measure b: every call of the grader failed: no VERDICTS: line (4x)"


def test_an_error_beside_a_blocked_skill_says_both() -> None:
    lines, code = closing_lines({"a": False, "b": False}, {"b": ERR}, [OFF], [])
    assert code == 3
    assert lines[-1].endswith("; also blocked by the release gate (NOT READY: a)")


def test_without_errors_the_codes_are_the_references() -> None:
    assert closing_lines({"a": True}, {}, [OFF], [])[1] == 0
    assert closing_lines({"a": False}, {}, [OFF], [])[1] == 1
