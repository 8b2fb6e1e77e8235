"""`skill-be verify`: the result file matches the project and records every skill READY; then the checks."""

from __future__ import annotations

from pathlib import Path

from skill_be.checks import run_checks
from skill_be.commands.common import result_line, warn
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill, load_project
from skill_be.reports import strings
from skill_be.results.result_file import ResultFile, read_result_file


def main(config_path: Path) -> int:
    project = load_project(config_path, warn=warn)
    result = read_result_file(project.config.result_file)
    lines, ok = result_file_lines(project, result)
    for line in lines:
        print(line)
    blockers = [] if ok else ["the result file"]
    for outcome in run_checks(project, warn):
        for line in outcome.lines:
            print(line)
        if outcome.blocks:
            blockers.append(outcome.blocker)
    print(result_line(blockers))
    return 1 if blockers else 0


def result_file_lines(project: Project, result: ResultFile | None) -> tuple[list[str], bool]:
    name = shown(project.config.result_file)
    if result is None:
        return [
            f"result file {name}: 1 problem(s)",
            f'  - no run has been recorded yet ({name} does not exist); run "skill-be run" and commit {name}',
        ], False
    problems = [p for skill in project.skills if (p := _problem(project, skill, result))]
    if problems:
        return [f"result file {name}: {len(problems)} problem(s)", *problems], False
    n = len(project.skills)
    return [strings.VERIFY_ALL_READY.format(name=name, n=n)], True


def _problem(project: Project, skill: Skill, result: ResultFile) -> str | None:
    entry = result.skills.get(skill.name)
    rerun = f'run "skill-be run {skill.name}"'
    if entry is None:
        return f'  - skill "{skill.name}": no entry in the result file; {rerun}'
    if entry.fingerprint != project.fingerprint(skill):
        what = (
            "its SKILL.md, its eval file, the config, its tests or its package list"
            if skill.has_code_tests
            else "its SKILL.md, its eval file or the config"
        )
        return f'  - skill "{skill.name}": changed since its last run ({what}); {rerun}'
    if not entry.ready:
        why = "; ".join(entry.reasons) if entry.reasons else "no reason recorded"
        return strings.VERIFY_NOT_READY.format(skill=skill.name, date=entry.date, why=why, rerun=rerun)
    return None
