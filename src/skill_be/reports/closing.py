"""The closing lines a command prints last: the verdicts, the checks, the files written and the
Result line (`Result: pass`, or `Result: blocked by ...`). Pure functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_be.checks import CheckOutcome
from skill_be.reports import strings as s


def join_words(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def result_line(blockers: Sequence[str]) -> str:
    """`Result: pass`, or `Result: blocked by the result file and the typecheck`."""
    return s.RESULT_BLOCKED.format(blockers=join_words(blockers)) if blockers else s.RESULT_PASS


def run_closing(
    ready: Mapping[str, bool], outcomes: Sequence[CheckOutcome], written: Sequence[str]
) -> tuple[list[str], bool]:
    """`run`'s closing lines, from each skill's verdict (in order), the checks' outcomes and the
    files written (as shown); and whether anything blocks."""
    lines = ["Skills:", *(f"  {name}: {s.READY if ok else s.NOT_READY}" for name, ok in ready.items())]
    blockers: list[str] = []
    not_ready = [name for name, ok in ready.items() if not ok]
    if not_ready:
        blockers.append(s.GATE_BLOCKER.format(skills=", ".join(not_ready)))
    for c in outcomes:
        lines += c.lines
        if c.blocks:
            blockers.append(c.blocker)
    lines += ["Written:", *(f"  {path}" for path in written), result_line(blockers)]
    return lines, bool(blockers)


def check_json(outcomes: Sequence[CheckOutcome], warnings: Sequence[str], config: str) -> dict[str, object]:
    """`check --json`: each check's lines and problems (with files and lines), the warnings, the result."""
    blockers = [o.blocker for o in outcomes if o.blocks]
    return {
        "result": "blocked" if blockers else "pass",
        "exitCode": 1 if blockers else 0,
        "config": config,
        "checks": [
            {"name": o.name, "blocks": o.blocks, "lines": list(o.lines), "problems": [p.as_json() for p in o.problems]}
            for o in outcomes
        ],
        "warnings": list(warnings),
        "lines": [*(line for o in outcomes for line in o.lines), result_line(blockers)],
    }
