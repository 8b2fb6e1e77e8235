"""The action's free comparison: this branch's result file against the base branch's, at their merge
base (results/compare.py), for `verify` and `run` on a pull request. No model is called.

The base is the pull request's base commit from the event file (`pull_request.base.sha`), or the
`base-ref` input (github/inputs.py `Context.base`); a shallow checkout fetches that one commit first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skill_be.reports import strings
from skill_be.reports.pr_comment import GateView, SkillView
from skill_be.results.compare import Comparison, SkillFiles, compare, scenarios_now
from skill_be.results.git_files import Base, GitError, find_base, toplevel


def _rel(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()


def skill_files(project: Any, root: Path) -> dict[str, SkillFiles]:
    """Each skill's eval file, scenarios and test files, as the comparison reads them."""
    out: dict[str, SkillFiles] = {}
    for s in project.skills:
        tests = {sid: _rel(p, root) for sid, p in s.test_files.items()}
        texts: dict[str, bytes] = {}
        for sid, p in s.test_files.items():
            try:
                texts[sid] = Path(p).read_bytes()
            except OSError:
                continue
        out[s.name] = SkillFiles(_rel(s.eval_path, root), scenarios_now(s.evals.scenarios), tests, texts)
    return out


def compare_with_base(project: Any, cwd: Path, ref: str, name: str = "") -> Comparison:
    """The comparison of the project's committed result file with the base's; a Comparison with only
    a note when git or the base cannot answer."""
    try:
        root = toplevel(cwd)
    except GitError as e:
        return Comparison("", name or ref, {}, f"no comparison with the base: {e}")
    found = find_base(root, ref, name=name)
    if isinstance(found, GitError):
        return Comparison("", name or ref, {}, f"no comparison with the base: {found}")
    result_file = Path(project.config.result_file)
    try:
        head_doc = json.loads(result_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        head_doc = None
    return compare(root, found, _rel(result_file, root), head_doc, skill_files(project, root))


__all__ = ["Base", "apply_rules", "compare_with_base", "skill_files"]


def apply_rules(view: GateView, gate: Any) -> GateView:
    """`gate.previous` and `gate.minDelta` (results/gate_rules.py) on the view: a skill they block
    turns NOT READY with the reason, and the result blocked; `warn` adds a warning line."""
    from skill_be.reports.pr_changes import rows_effect
    from skill_be.results.gate_rules import min_delta_reason, previous_rule

    c = view.comparison
    rule = str(getattr(gate, "rule", "strict"))
    # the previous arm's comparison was judged by the run itself (commands/versus.py): not twice
    mode = str(getattr(gate, "previous", "warn"))
    outcomes = previous_rule(list(c.skills.values()), mode, rule) if c is not None and not c.decided else {}
    skills: list[SkillView] = []
    warnings = list(view.warnings)
    for s in view.skills:
        o = outcomes.get(s.name)
        blocks = list(o.blocks) if o else []
        warnings += [f"{s.name}: {w} (gate.previous: warn)" for w in (o.warnings if o else ())]
        change = c.skills.get(s.name) if c else None
        effect = change.vs_baseline if change is not None and change.vs_baseline else rows_effect(s.tables)[0]
        short = min_delta_reason(effect, getattr(gate, "min_delta", None), rule) if s.tables or change else None
        decided = any(r.startswith("min delta:") for r in s.reasons)  # the run's engine already did
        blocks += [short] if short and not decided else []
        if blocks and s.ready is not None:
            s = s._replace(ready=False, reasons=(*s.reasons, *blocks))
        skills.append(s)
    if not (any(s.ready is False for s in skills) and view.result == "pass"):
        return view._replace(skills=tuple(skills), warnings=tuple(warnings))
    names = " ".join(s.name for s in skills if s.ready is False)
    line = strings.RESULT_RULES_BLOCKED.format(names=names)
    return view._replace(skills=tuple(skills), warnings=tuple(warnings), result="blocked", result_line=line)
