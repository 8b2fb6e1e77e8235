"""What `run` prints last when stdout is a terminal: the verdict first. Per skill one line (READY in
green, NOT READY in red, ERROR in yellow) with the overall effect and its interval, then what blocks
in plain words, then the checks, where the report and the page are, and the Result line. When stdout
is not a terminal the reference's output stays (each skill's report, then the closing lines).

Colour follows `--color auto|always|never`; under `auto`, only on a terminal, never with `NO_COLOR`
set (https://no-color.org) or `TERM=dumb`. Pure functions: the command decides and prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from skill_be.reports import strings as s

COLOURS = {s.READY: "32", s.NOT_READY: "31", "ERROR": "33"}  # green, red, yellow
MODES = ("auto", "always", "never")
MOST_REASONS = 3  # the blocking reasons shown per skill; the rest are in the report


@dataclass(frozen=True)
class Style:
    colour: bool = False

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def bold(self, text: str) -> str:
        return self.paint(text, "1")


def colour_on(mode: str, tty: bool, environ: Mapping[str, str]) -> bool:
    """Whether to colour: `always`, `never`, or under `auto` a terminal without NO_COLOR or TERM=dumb."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    return tty and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 scenario`, `2 scenarios`."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def effect_text(effect: Mapping[str, Any] | None) -> str:
    """`overall effect +12pp (95% interval -3 to +25pp, no clear difference)`, or why there is none."""
    if not effect:
        return "no overall effect (nothing graded)"
    est, low, high = (round(float(effect[k])) for k in ("estimate", "low", "high"))
    label = f", {effect['label']}" if effect.get("label") else ""
    return f"overall effect {s.signed(est)}pp (95% interval {s.signed(low)} to {s.signed(high)}pp{label})"


def verdict_of(summary: Mapping[str, Any]) -> str:
    if summary.get("verdict") == "ERROR":
        return "ERROR"
    return s.READY if summary.get("ready") else s.NOT_READY


def skill_lines(name: str, summary: Mapping[str, Any], style: Style, suffix: str = "") -> list[str]:
    """The skill's verdict line, then what blocks it (at most MOST_REASONS, the rest counted)."""
    verdict = verdict_of(summary)
    head = f"{style.bold(name)}: {style.paint(style.bold(verdict), COLOURS[verdict])}{suffix}  {effect_text(summary.get('effect'))}"
    if verdict == "ERROR":
        return [head, f"  could not measure it: {summary.get('cause', 'see the report')}"]
    reasons = [str(r) for r in summary.get("reasons", ())]
    out = [head, *(f"  blocks: {r}" for r in reasons[:MOST_REASONS])]
    if len(reasons) > MOST_REASONS:
        out.append(f"  and {plural(len(reasons) - MOST_REASONS, 'more reason')}: see the report")
    return out


def summary_lines(
    summaries: Mapping[str, Mapping[str, Any]],
    check_lines: Sequence[str],
    reports: Sequence[str],
    page: str | None,
    result: str,
    style: Style,
    suffix: str = "",
) -> list[str]:
    """The whole terminal summary: every skill, the checks, the files, the Result line."""
    out: list[str] = []
    for name, summary in summaries.items():
        out += skill_lines(name, summary, style, suffix if verdict_of(summary) == s.NOT_READY else "")
    out += check_lines
    out += [f"Report: {path}" for path in reports]
    out.append(f"Page: {page}" if page else "Page: add --html for results.html, every answer side by side")
    if reports:  # <results>/<run>/<skill>.md: `open` takes the results folder, whatever config named it
        out.append(
            f"Every run: skill-be open {PurePath(reports[0]).parent.parent} (the runs over time, in your browser)"
        )
    verdict = s.READY if result == s.RESULT_PASS else ""
    out.append(style.paint(result, COLOURS[verdict]) if verdict else style.bold(result))
    return out
