"""The words of an ERROR verdict (engine/health.py): the report's first line, its gate verdict, the
closing lines and the Result line. Pure functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_be.checks import CheckOutcome
from skill_be.engine.health import Health
from skill_be.reports import strings as s
from skill_be.reports.closing import join_words, run_closing

ERROR_HEAD = "**ERROR** — could not measure this skill: {cause}. Not a verdict on the skill: the result file keeps its previous entry."
ERROR_VERDICT = "**ERROR** — {why}; fix the setup and run it again."
EXIT_ERROR = 3  # a run that could not measure (docs/errors-and-exit-codes.md)


def error_report(report: str, health: Health) -> str:
    """The skill's report led by the cause, its gate verdict ERROR instead of NOT READY or READY."""
    # a gate reason drawn from what was not measured (0% everywhere, say) is no finding about the skill
    lines = [line for line in report.split("\n") if not line.startswith("- **BLOCKED**")]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] in (s.NOT_READY_LINE, s.READY_LINE, s.READY_LINE_ZERO_SEEN):
            lines[i] = ERROR_VERDICT.format(why=health.why)
            break
    return "\n".join([ERROR_HEAD.format(cause=health.cause), "", *lines])


def health_keys(health: Health) -> dict[str, object]:
    """summary.json's keys for a skill: `verdict` ERROR and its `cause` (only when ERROR)."""
    if not health.error:
        return {}
    return {"ready": False, "verdict": "ERROR", "cause": health.cause}


def closing_lines(
    ready: Mapping[str, bool],
    errored: Mapping[str, Health],
    outcomes: Sequence[CheckOutcome],
    written: Sequence[str],
) -> tuple[list[str], int]:
    """`run_closing` with the ERROR skills: each listed as ERROR with its cause, and the Result line
    led by the causes. The exit code: 3 when a skill could not be measured, else 1 when anything
    blocks, else 0."""
    measured = {name: ok for name, ok in ready.items() if name not in errored}
    lines, blocked = run_closing(measured, outcomes, written)
    if not errored:
        return lines, 1 if blocked else 0
    at = lines.index("Skills:") + 1 + len(measured)
    lines[at:at] = [f"  {name}: ERROR ({h.cause})" for name, h in errored.items()]
    causes = join_words([f"{name}: {h.cause}" for name, h in errored.items()])
    rest = lines[-1].removeprefix(s.RESULT_PREFIX)
    lines[-1] = s.RESULT_ERROR.format(causes=causes) + (f"; also {rest}" if blocked else "")
    return lines, EXIT_ERROR
