"""The `skill-be` check run: a pure function from the gate's view to its conclusion, output and annotations."""

from __future__ import annotations

from typing import Any

from skill_be.reports.pr_comment import GateView, render, trim_markdown
from skill_be.reports.quote import plain

OUTPUT_LIMIT = 65_535  # GitHub's limit for a check run's summary and text
ANNOTATIONS_PER_REQUEST = 50
_MESSAGE_LIMIT = 4_000


def name(working_directory: str) -> str:
    return "skill-be" if working_directory in ("", ".") else f"skill-be ({working_directory})"


def conclusion(view: GateView) -> str:
    """success when nothing blocks; failure when something does, or neutral when the workflow asked
    not to fail on it; failure when the command could not run (a config error)."""
    if view.result == "pass":
        return "success"
    if view.result == "blocked" and not view.fail_on_not_ready:
        return "neutral"
    return "failure"


def title(view: GateView) -> str:
    not_ready = [s.name for s in view.skills if s.ready is False or s.changed]
    if view.result == "pass":
        n = len(view.skills)
        return f"READY: {n} skill(s)" if n else "pass"
    if view.result == "error":
        return "error: " + plain(view.result_line.removeprefix("skill-be: "), 200)
    if not_ready:
        return "NOT READY: " + plain(", ".join(not_ready), 200)
    return plain(view.result_line.removeprefix("Result: "), 200)


def summary(view: GateView) -> str:
    return trim_markdown(render(view), OUTPUT_LIMIT, "the full report is in the job summary")


def annotation_list(view: GateView) -> list[dict[str, Any]]:
    """Check problems at their files' lines, and each blocking line at its scenario in the eval file."""
    out: list[dict[str, Any]] = []
    for p in view.problems:
        if p.path is None:
            continue
        line = p.line if p.line and p.line > 0 else 1
        out.append(
            {
                "path": p.path,
                "start_line": line,
                "end_line": line,
                "annotation_level": "failure" if p.blocks else "warning",
                "title": plain(f"skill-be {p.check}", 255),
                "message": _short(p.message),
            }
        )
    for s in view.skills:
        if s.eval_file is None or s.ready is not False:
            continue
        for scenario, what in s.blocking:
            line = s.scenario_lines.get(scenario, 1)
            out.append(
                {
                    "path": s.eval_file,
                    "start_line": line,
                    "end_line": line,
                    "annotation_level": "failure",
                    "title": plain(f'skill-be: skill "{s.name}" NOT READY', 255),
                    "message": _short(f"{scenario}: {what}"),
                }
            )
    return out


def batches(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """At most 50 annotations a request: the first batch goes with the create, the rest as updates."""
    return [items[i : i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(items), ANNOTATIONS_PER_REQUEST)]


def _short(text: str) -> str:
    """An annotation's message: one line (a message may quote a test's or a checker's output)."""
    return plain(text, _MESSAGE_LIMIT)
