"""`skill-be verify`: the result file matches the project and records every skill READY; then the checks.
With `--base REF`, also the free comparison with the result file committed at REF's merge base (no
model call), and `gate.previous` / `gate.minDelta` on it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from skill_be.checks import run_checks
from skill_be.paths import command_line, shown
from skill_be.project.loader import Project, Skill, load_project
from skill_be.reports import strings
from skill_be.results.result_file import ResultFile, counts, read_result_file
from skill_be.results.staleness import short_of_config, what_changed
from skill_be.wiring.common import result_line, warn

if TYPE_CHECKING:
    from skill_be.engine.changes import Comparison


def main(config_path: Path, base: str | None = None) -> int:
    project = load_project(config_path, warn=warn)
    result = read_result_file(project.config.result_file)
    comparison = None
    if base is not None:  # a ref git does not know stops here, before any line (results/base.py)
        from skill_be.results.base import comparison_at

        comparison = comparison_at(project, base)
    lines, ok = result_file_lines(project, result)
    for line in lines:
        print(line)
    blockers = [] if ok else ["the result file"]
    for outcome in run_checks(project, warn):
        for line in outcome.lines:
            print(line)
        if outcome.blocks:
            blockers.append(outcome.blocker)
    if comparison is not None:
        lines, blocker = base_lines(project, result, comparison)
        print("\n".join(lines))
        blockers += [blocker] if blocker else []
    print(result_line(blockers))
    return 1 if blockers else 0


def base_lines(project: Project, result: ResultFile | None, c: Comparison) -> tuple[list[str], str | None]:
    """The comparison's lines, then what `gate.previous` and `gate.minDelta` decide on it, and the
    blocker they add to the Result line (None when they block nothing)."""
    from skill_be.engine.changes import overall
    from skill_be.engine.gate import blocking_rules, rule_outcomes
    from skill_be.engine.reasons import MIN_DELTA
    from skill_be.reports.comparison_text import comparison_lines, rule_lines

    names = [s.name for s in project.skills]
    entries = result.skills if result is not None else {}
    # min delta reads this branch's recorded effect over no skill (None: an entry without scores),
    # unless the run that recorded it decided it already (engine/gate.py)
    effects = {
        name: overall([(x["scenario"], x["model"], counts(x["baseline"]), counts(x["withSkill"])) for x in scores])
        if (scores := e.get("scores"))
        else None
        for name in names
        if (e := entries.get(name)) is not None and not any(w.get("kind") == MIN_DELTA for w in e.get("why") or ())
    }
    outcomes = rule_outcomes(names, c.skills, effects, project.config.gate)
    blocked = [name for name, o in outcomes.items() if o.blocks]
    rules = " and ".join(blocking_rules(outcomes))
    blocker = strings.RULES_BLOCKER.format(rules=rules, skills=", ".join(blocked)) if blocked else None
    return [*comparison_lines(c), *rule_lines(outcomes)], blocker


def result_file_lines(project: Project, result: ResultFile | None) -> tuple[list[str], bool]:
    name = shown(project.config.result_file)
    if result is None:
        return [
            f"result file {name}: 1 problem(s)",
            f'  - no run has been recorded yet ({name} does not exist); run "{command_line("run", project.config.path)}" and commit {name}',
        ], False
    problems = [p for skill in project.skills if (p := _problem(project, skill, result))]
    if problems:
        return [f"result file {name}: {len(problems)} problem(s)", *problems], False
    n = len(project.skills)
    lines = [strings.VERIFY_ALL_READY.format(name=name, n=n)]
    return lines + trigger_lines(project, result), True


def trigger_lines(project: Project, result: ResultFile) -> list[str]:
    """The trigger scores the result file records (reports/trigger_lines.py)."""
    from skill_be.reports.trigger_lines import recorded_lines

    entries = [(s.name, result.skills[s.name].get("triggers")) for s in project.skills if s.name in result.skills]
    return [line for name, t in entries if t for line in recorded_lines(name, t)]


def _problem(project: Project, skill: Skill, result: ResultFile) -> str | None:
    entry = result.skills.get(skill.name)
    rerun = f'run "skill-be run {skill.name}"'
    if entry is None:
        return f'  - skill "{skill.name}": no entry in the result file; {rerun}'
    short = short_of_config(project, entry)  # results/staleness.py
    if short is not None:
        return f'  - skill "{skill.name}": changed: run it again ({short}); {rerun}'
    what = what_changed(project, skill, entry)  # names the file or key
    if what is not None:
        return f'  - skill "{skill.name}": changed since its last run ({what}); {rerun}'
    if not entry["ready"]:
        why = "; ".join(entry["reasons"]) if entry["reasons"] else "no reason recorded"
        return strings.VERIFY_NOT_READY.format(skill=skill.name, date=entry["date"], why=why, rerun=rerun)
    return None
