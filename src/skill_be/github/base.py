"""The action's free comparison: this branch's result file against the base branch's, at their merge
base (results/base.py), for `verify` and `run` on a pull request. No model is called.

The base is the pull request's base commit from the event file (`pull_request.base.sha`), or the
`base-ref` input (github/inputs.py `Context.base`); a shallow checkout fetches that one commit first.
"""

from __future__ import annotations

from typing import Any

from skill_be.engine.stats import Interval
from skill_be.reports import strings
from skill_be.reports.pr_comment import GateView, SkillView
from skill_be.results.base import compare_with_base, skill_files
from skill_be.results.git_files import Base

__all__ = ["Base", "apply_rules", "compare_with_base", "skill_files"]


def apply_rules(view: GateView, gate: Any) -> GateView:
    """`gate.previous` and `gate.minDelta` (engine/gate.py) on the view: a skill they block
    turns NOT READY with the reason, and the result blocked; `warn` adds a warning line."""
    from skill_be.engine.gate import rule_outcomes
    from skill_be.engine.reasons import MIN_DELTA, rule_reason
    from skill_be.reports.gate import rule_text
    from skill_be.reports.pr_changes import rows_effect

    c = view.comparison
    # The previous arm's comparison was judged by the run itself (wiring/previous.py), and a recorded
    # minDelta reason by the run's engine gate: neither is decided twice.
    changes = dict(c.skills) if c is not None and not c.decided else {}
    effects: dict[str, Interval | None] = {}
    for s in view.skills:
        change = c.skills.get(s.name) if c is not None else None
        if (s.tables or change) and not any(w.get("kind") == MIN_DELTA for w in s.why):
            measured = change.vs_baseline if change is not None and change.vs_baseline else None
            effects[s.name] = measured or rows_effect(s.tables)[0]
    outcomes = rule_outcomes([s.name for s in view.skills], changes, effects, gate)
    skills: list[SkillView] = []
    warnings = list(view.warnings)
    for s in view.skills:
        o = outcomes.get(s.name)
        warnings += [f"{s.name}: {rule_text(w)} (gate.previous: warn)" for w in (o.warnings if o else ())]
        if o and o.blocks and s.ready is not None:
            texts = tuple(rule_text(r) for r in o.blocks)
            why = tuple(rule_reason(r).to_json() for r in o.blocks)
            s = s._replace(ready=False, reasons=(*s.reasons, *texts), why=(*s.why, *why))
        skills.append(s)
    if not (any(s.ready is False for s in skills) and view.result == "pass"):
        return view._replace(skills=tuple(skills), warnings=tuple(warnings))
    names = " ".join(s.name for s in skills if s.ready is False)
    line = strings.RESULT_RULES_BLOCKED.format(names=names)
    return view._replace(skills=tuple(skills), warnings=tuple(warnings), result="blocked", result_line=line)
