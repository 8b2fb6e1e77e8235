"""A comparison (engine/changes.py) as terminal lines: per skill its overall change against the other
side (`-40pp (-78 to -2), worse`), then every line sorted by how far it moved, each with its interval
and a noise marker (▲ ▼ beyond the noise, ≈ within it), the lines that are not comparable with why.
Pure functions of a `Comparison`: `verify --base` and `run --base` print them, and so can any other
comparison (the previous version's).
"""

from __future__ import annotations

from collections.abc import Mapping

from skill_be.engine.changes import (
    COMPARED,
    NEW,
    SKILL_NEW,
    SKILL_NO_HEAD,
    SKILL_NO_SCORES,
    Comparison,
    LineChange,
    SkillChange,
    reps_text,
)
from skill_be.engine.gate import Rules
from skill_be.engine.gate import signed_pp as pp
from skill_be.reports import strings
from skill_be.reports.gate import rule_text
from skill_be.reports.pr_changes import NOISE_WORDS, effect_text, marker, usage_line
from skill_be.reports.quote import plain

RECORDED = "from the recorded scores (no model call)"


def comparison_lines(c: Comparison, source: str = RECORDED) -> list[str]:
    """`Against <label>, <source>:`, then a block per skill; one line with the note when nothing was
    compared. `source` says where the numbers come from (the result files, by default)."""
    label = plain(c.label)
    if c.note:
        return [f"Against {label}: {plain(c.note)}"]
    out = [f"Against {label}, {source}:"]
    for change in c.skills.values():
        out += skill_lines(change)
    return out


def skill_lines(change: SkillChange) -> list[str]:
    name = plain(change.name)
    if change.status == SKILL_NO_HEAD:
        return [f"  {name}: this branch recorded no scores; run it to compare"]
    vs_none = effect_text(change.vs_baseline, change.low_sample)
    if change.status == SKILL_NEW:
        head = f"  {name}: new skill (the base does not have it) · vs no skill: {vs_none}"
    elif change.status == SKILL_NO_SCORES:
        then = {True: strings.READY, False: strings.NOT_READY, None: "no verdict"}[change.base_ready]
        head = f"  {name}: no scores at base (verdict then: {then}) · vs no skill: {vs_none}"
    elif change.vs_base is None:
        head = f"  {name}: no line comparable · vs no skill: {vs_none}"
    else:
        head = f"  {name}: {effect_text(change.vs_base, change.low_sample)} · vs no skill: {vs_none}"
    tokens = usage_line(change.base_usage, change.head_usage, "base", ours="this branch")
    head_lines = [head, *([f"    {tokens}"] if tokens else [])]
    if change.status in (SKILL_NEW, SKILL_NO_SCORES):
        return head_lines
    return [*head_lines, *(f"    {line_text(x)}" for x in sorted(change.lines, key=_movement))]


def _movement(x: LineChange) -> tuple[int, float]:
    """Compared lines first, the ones that moved most first; the rest after, in their order."""
    if x.status != COMPARED or x.interval is None:
        return (1, 0.0)
    return (0, -abs(x.interval.estimate))


def _rate(counts: tuple[int, int] | None) -> str:
    if counts is None or counts[1] == 0:
        return "–"
    return f"{round(100 * counts[0] / counts[1])}% ({counts[0]}/{counts[1]})"


def line_text(x: LineChange) -> str:
    """`▼ scenario / model "line" (critical): 100% (5/5) → 20% (1/5), -80pp (-95 to -32)`."""
    where = f'{plain(x.scenario)} / {plain(x.model)} "{plain(x.line)}"' + (" (critical)" if x.critical else "")
    if x.status == NEW:
        return f"+ {where}: new ({plain(x.why)}): {_rate(x.head)}"
    if x.status != COMPARED or x.interval is None:
        return f"- {where}: not comparable ({plain(x.why)}): {_rate(x.base)} → {_rate(x.head)}"
    iv = x.interval
    text = (
        f"{marker(iv)} {where}: {_rate(x.base)} → {_rate(x.head)}, {pp(iv.estimate)}pp ({pp(iv.low)} to {pp(iv.high)})"
    )
    if iv.contains(0.0):
        text += f", {NOISE_WORDS}"
        if x.reps_to_decide is not None and iv.estimate != 0:
            text += f"; about {reps_text(x.reps_to_decide)} reps per arm would decide it"
    return text


def rule_lines(outcomes: Mapping[str, Rules]) -> list[str]:
    """What `gate.previous` and `gate.minDelta` decided, per skill: what blocks, what only warns."""
    out: list[str] = []
    for name, o in outcomes.items():
        out += [f"  {plain(name)}: blocks: {plain(rule_text(r))}" for r in o.blocks]
        out += [f"  {plain(name)}: warning: {plain(rule_text(w))} (gate.previous: warn)" for w in o.warnings]
    return ["Gate rules against the base:", *out] if out else []
