"""The report's "Against the previous version" section (`run --against REF`) and summary.json's
`previous` key: the skill's overall change against its version at REF with its interval and label,
then every line, the ones that moved most first, with its noise marker (the PR comment's table,
reports/pr_changes.py), and how the previous arm's answers were made."""

from __future__ import annotations

from typing import Any

from skill_be.engine.changes import COMPARED, SKILL_NEW, Comparison, SkillChange
from skill_be.reports.pr_changes import changes_table, effect_text
from skill_be.reports.quote import md_text

HEADING = "## Against the previous version"


def previous_section(change: SkillChange, c: Comparison, at: str, unchanged: bool, made: int, reused: int) -> list[str]:
    """`at`: the commit as the run names it (`main (abc1234)`)."""
    out = ["", HEADING, ""]
    if change.status == SKILL_NEW:
        why = change.lines[0].why if change.lines else f"the skill did not exist at {c.base[:7]}"
        return [*out, f"No previous arm: {md_text(why)}.", ""]
    how = (
        f"The skill is unchanged since {md_text(at)}: its with-skill answers are the previous arm's "
        f"({reused} reused, no model call), so every line's change is 0 by construction."
        if unchanged
        else f"Previous arm: {made} answer(s) with the skill as it was at {md_text(at)}."
    )
    out += [
        f"Overall, against the previous version ({md_text(at)}): {effect_text(change.vs_base, change.low_sample)}.",
        "",
        how,
        "",
    ]
    if not any(x.status == COMPARED for x in change.lines):
        out += ["No line is comparable: every scenario changed since then (see each line's reason).", ""]
    return out + changes_table(change, c)


def previous_json(change: SkillChange, c: Comparison, made: int, reused: int) -> dict[str, Any]:
    """summary.json's `previous`: the commit, the overall change and each line's."""
    iv = change.vs_base
    return {
        "commit": c.base,
        "label": c.label,
        "status": change.status,
        "answers": {"made": made, "reused": reused},
        "overall": None if iv is None else {"estimate": iv.estimate, "low": iv.low, "high": iv.high, "label": iv.label},
        "lines": [
            {
                "model": x.model,
                "scenario": x.scenario,
                "line": x.line,
                "kind": x.kind,
                "critical": x.critical,
                "status": x.status,
                "baseline": {"passed": x.baseline[0], "total": x.baseline[1]},
                "withSkill": {"passed": x.head[0], "total": x.head[1]},
                "previous": None if x.base is None else {"passed": x.base[0], "total": x.base[1]},
                "interval": None
                if x.interval is None
                else {"estimate": x.interval.estimate, "low": x.interval.low, "high": x.interval.high},
                **({"why": x.why} if x.why else {}),
            }
            for x in change.lines
        ],
    }
