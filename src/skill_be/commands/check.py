"""`skill-be check`: the typecheck, coverage and code-test parse, and the hint-word warnings. No model."""

from __future__ import annotations

import json as jsonlib
from pathlib import Path

from skill_be.paths import shown
from skill_be.project.loader import load_project
from skill_be.reports.closing import check_json, result_line
from skill_be.wiring.common import warn


def main(config_path: Path, json: bool = False, graders: bool = False, dry_run: bool = False) -> int:
    """Exit 0 when every blocking check passes, 1 when one blocks; config errors raise (exit 2).
    With `graders`, the reference answers instead (wiring/pipeline.py `check_graders`)."""
    if graders or dry_run:
        return _graders(config_path, json, graders, dry_run)
    from skill_be.checks.runner import collect
    from skill_be.codetests.hints import hint_warnings
    from skill_be.codetests.packages import read_package_list

    warnings: list[str] = []

    def note(line: str) -> None:
        warnings.append(line)
        if not json:
            warn(line)

    project = load_project(config_path, warn=note)
    for skill in project.skills:
        if skill.package_list is not None:
            read_package_list(skill.package_list)  # its errors are config errors; nothing is installed
    collected = collect(project, note, parse_tests=True)
    for line in hint_warnings(project, note, coverage_names=collected.coverage_names):
        note(line)
    blockers = [o.blocker for o in collected.outcomes if o.blocks]
    if json:
        print(jsonlib.dumps(check_json(collected.outcomes, warnings, shown(project.config.path)), indent=2))
    else:
        for outcome in collected.outcomes:
            for line in outcome.lines:
                print(line)
        print(result_line(blockers))
    return 1 if blockers else 0


def _graders(config_path: Path, json: bool, graders: bool, dry_run: bool) -> int:
    import asyncio

    from skill_be.errors import UsageError
    from skill_be.wiring.assembly import engine_settings
    from skill_be.wiring.pipeline import check_graders

    if not graders:
        raise UsageError("--dry-run: prices check --graders; add --graders", "check")
    if json:
        raise UsageError("--json: not with --graders yet; drop one of them", "check")
    project = load_project(config_path, warn=warn)
    config = project.config
    return asyncio.run(check_graders(project, engine_settings(config), config.concurrency, dry_run))
