"""The typecheck: the TypeScript preset's job for the Node helper, and the `command` variant."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from skill_be.checks import CheckOutcome, Problem, commandline
from skill_be.checks.commandline import command_argv, run_bounded
from skill_be.checks.plan import TS_LANGS, Library, TypecheckPlan, typecheck_where
from skill_be.project.loader import Project, Skill


def typescript_job(project: Project, library: Library | None, preludes: Mapping[str, Path]) -> dict[str, object]:
    """The helper's `typecheck` job: every ts block of every skill, with its SKILL.md line."""
    lib: dict[str, object] | None = None
    if library is not None:
        lib = {"kind": library.kind, "name": library.name}
        if library.entry is not None:
            lib["entry"] = str(library.entry)
            lib["packageName"] = library.package_name
    skills = [
        {
            "name": s.name,
            "dir": str(s.dir.absolute()),
            "prelude": str(preludes[s.name]) if s.name in preludes else None,
            "blocks": [{"code": b.code, "line": b.line} for b in s.doc.blocks if b.lang in TS_LANGS and not b.skip],
        }
        for s in project.skills
    ]
    return {"root": str(project.config.root), "library": lib, "skills": skills}


def typescript_problems(answer: Mapping[str, Any], project: Project, warn: Callable[[str], None]) -> list[Problem]:
    """The helper's answer as problems; blocks that do not parse are warned about and skipped."""
    if answer.get("error"):
        raise typecheck_where(project.config).error(str(answer["error"]))
    by_name = {s.name: s for s in project.skills}
    for u in answer.get("unparsed", []):
        warn(
            f'warning: skill "{u["skill"]}", SKILL.md line {u["line"]}: the typecheck skips a block that does not '
            f'parse ({u["message"]}); write "skip" after its language to skip it on purpose'
        )
    problems: list[Problem] = []
    for p in answer.get("problems", []):
        skill = by_name[p["skill"]]
        file = skill.skill_md if p["file"] == "SKILL.md" else Path(p["file"])
        problems.append(Problem(message=p["message"], file=file, line=int(p["line"]), skill=skill.name))
    return problems


def command_problems(project: Project, command: str) -> list[Problem]:
    """Every block with a language tag and no `skip`, one at a time, through the command."""
    from skill_be.adapters.process import tail

    where = typecheck_where(project.config).key("command")
    argv = command_argv(project.config, command, where)
    problems: list[Problem] = []
    for skill in project.skills:
        for block in skill.doc.blocks:
            if not block.lang or block.skip:
                continue
            env = {**os.environ, "SKILL_BE_LANG": block.lang, "SKILL_BE_SKILL": skill.name}
            try:
                code, out, err = run_bounded(
                    argv, stdin=block.code + "\n", cwd=project.config.root, env=env, timeout=commandline.TIMEOUT
                )
            except OSError as e:
                raise where.error(f'cannot start "{argv[0]}" ({e.strerror or e}); fix the command line') from None
            if code == 0:
                continue
            if code is None:
                message = f"the typecheck command did not finish within {commandline.TIMEOUT:g} seconds"
            else:
                detail = tail(err) or tail(out)
                message = f"the typecheck command failed (exit code {code})" + (f": {detail}" if detail else "")
            problems.append(_at(skill, block.line, message))
    return problems


def _at(skill: Skill, line: int, message: str) -> Problem:
    return Problem(message=message, file=skill.skill_md, line=line, skill=skill.name)


def outcome(plan: TypecheckPlan, problems: Sequence[Problem], skills: int) -> CheckOutcome:
    if not problems:
        return CheckOutcome("typecheck", (f"typecheck: passed ({skills} skill(s))",))
    head = f"typecheck: {len(problems)} problem(s)" + ("" if plan.blocking else ", not blocking")
    return CheckOutcome(
        "typecheck",
        (head, *(f"  - {p.text()}" for p in problems)),
        blocks=plan.blocking,
        blocker="the typecheck",
        problems=tuple(problems),
    )


def off() -> CheckOutcome:
    return CheckOutcome("typecheck", ("typecheck: off",))
