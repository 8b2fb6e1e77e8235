"""The words of a fake run (`skill-be run --fake`, or a model or grader with `adapter: fake`): the
line every report and page opens with, the gate's block that keeps it from READY, and its Result line."""

from __future__ import annotations

from skill_be.reports import strings as s

BLOCK = (  # the gate's reason (engine/gate.py FakeRun) in words
    "fake run: the answers and gradings are canned (adapter fake), so nothing here measures the skill; "
    "set the model's key and run without --fake"
)
REPORT_LINE = (
    "> **FAKE RUN.** No model was called: every answer and grading below is canned (adapter `fake`), "
    "the verdict is never READY and the result file was not written."
)
PAGE_BANNER = (
    "FAKE RUN: no model was called; every answer and grading is canned (adapter fake), "
    "the verdict is never READY and the result file was not written."
)
SKILL_SUFFIX = " (fake run)"


def fake_report(report: str) -> str:
    """A skill's report, marked as fake on its first line."""
    return f"{REPORT_LINE}\n\n{report}"


def fake_closing(lines: list[str], code: int, checks_block: bool) -> tuple[list[str], int]:
    """The closing lines of a fake run: each skill marked, and when only the fake gate blocks, exit 0
    with the fake Result line (the pipeline worked; there is no verdict to give)."""
    verdict = f": {s.NOT_READY}"
    out = [f"{line}{SKILL_SUFFIX}" if line.startswith("  ") and line.endswith(verdict) else line for line in lines]
    if code == 1 and not checks_block:
        return [*out[:-1], s.RESULT_FAKE], 0
    return out, code
