"""Triage under grader.evidence: each fresh sample's verdict on the failing line comes with its quote,
found in the sample or not, and the triage file shows it; without evidence, nothing changes."""

from __future__ import annotations

from skill_be.engine.triage import Failure, Triaged, _graded
from skill_be.reports.triage import triage_report

CRITERIA = ("Uses allocate", "Checks the sum")
TEXT = "parts = allocate(10, [1, 1, 1])"


def test_the_sample_keeps_its_quote_and_required_turns_an_invented_one_to_no() -> None:
    reply = 'VERDICTS:\n1: YES "allocate(10, [1, 1, 1])"\n2: YES "assert sum(parts) == 10"\n'
    found = _graded(reply, TEXT, CRITERIA, "Uses allocate", "reported")
    assert (found.passed, found.quote, found.found) == (True, "allocate(10, [1, 1, 1])", True)
    invented = _graded(reply, TEXT, CRITERIA, "Checks the sum", "required")
    assert (invented.passed, invented.found) == (False, False)
    shown = _graded(reply, TEXT, CRITERIA, "Checks the sum", "reported")  # the control
    assert shown.passed is True and shown.found is False
    plain = _graded("VERDICTS:\n1: YES\n2: NO\n", TEXT, CRITERIA, "Checks the sum", None)
    assert (plain.passed, plain.quote, plain.found) == (False, None, None)
    f = Failure("money", "split", "m", "Checks the sum", "universal 0%")
    page = triage_report([Triaged(f, [invented, plain], None, None, "no classifier")], {}, "run-1")
    assert 'Quote: "assert sum(parts) == 10" (evidence not found)' in page
    assert page.count("Quote:") == 1  # the sample graded without evidence shows none
