"""reports/closing.py: the closing lines of `run` and the Result line, as pure functions."""

from __future__ import annotations

from skill_be.checks import CheckOutcome
from skill_be.reports.closing import result_line, run_closing


def test_result_line() -> None:
    assert result_line([]) == "Result: pass"
    assert result_line(["the typecheck"]) == "Result: blocked by the typecheck"
    assert result_line(["a", "b", "c"]) == "Result: blocked by a, b and c"


def test_run_closing_lists_verdicts_checks_and_files_then_the_result() -> None:
    typecheck = CheckOutcome("typecheck", ("typecheck: 1 problem(s)", "  - x"), True, "the typecheck")
    coverage = CheckOutcome("coverage", ("coverage: off",))
    lines, blocked = run_closing({"a": True, "b": False}, [typecheck, coverage], ["r/a.md", "r/summary.json"])
    assert blocked
    assert lines == [
        "Skills:",
        "  a: READY",
        "  b: NOT READY",
        "typecheck: 1 problem(s)",
        "  - x",
        "coverage: off",
        "Written:",
        "  r/a.md",
        "  r/summary.json",
        "Result: blocked by the release gate (NOT READY: b) and the typecheck",
    ]
    assert run_closing({"a": True}, [coverage], [])[0][-1] == "Result: pass"
    assert not run_closing({"a": True}, [coverage], [])[1]
