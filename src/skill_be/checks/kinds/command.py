"""The `command` variant, for any language: the typecheck pipes each tagged block to the command
(exit 0 passes), and coverage takes the API names the command prints, one per line. Split like the
command adapter, no shell, a time limit, the whole process group killed."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from skill_be.checks import Problem
from skill_be.checks.kinds import Warn
from skill_be.checks.plan import coverage_where, typecheck_where
from skill_be.proc import StartFailed, resolve_executable, run_sync, split_words, tail
from skill_be.project.config import Config, CoverageConfig, TypecheckConfig
from skill_be.project.loader import Project
from skill_be.project.where import Where

TIMEOUT = 60  # seconds: per block for the typecheck, per run for coverage


def command_argv(config: Config, command: str, where: Where) -> list[str]:
    """The argv to start, or a ConfigError naming the key when the program is not there."""
    try:
        argv = split_words(command)
    except ValueError as e:
        raise where.error(str(e)) from None
    exe = resolve_executable(argv[0], config.root, os.environ.get("PATH"))
    if exe is None:
        raise where.error(
            f'cannot start "{argv[0]}" (not found); install it, or fix the command line '
            "(it runs without a shell, in the config's directory)"
        )
    return [exe, *argv[1:]]


def _cannot_start(where: Where, argv: list[str], e: StartFailed) -> Exception:
    return where.error(f'cannot start "{argv[0]}" ({e.why}); fix the command line')


class Typecheck(NamedTuple):
    argv: tuple[str, ...]
    helper: None = None

    def problems(self, project: Project, answer: Mapping[str, Any] | None, warn: Warn) -> list[Problem]:
        """Every block with a language tag and no `skip`, one at a time, through the command."""
        where = typecheck_where(project.config).key("command")
        problems: list[Problem] = []
        for skill in project.skills:
            for block in skill.doc.blocks:
                if not block.lang or block.skip:
                    continue
                env = {**os.environ, "SKILL_BE_LANG": block.lang, "SKILL_BE_SKILL": skill.name}
                try:
                    done = run_sync(
                        self.argv, stdin=(block.code + "\n").encode(), cwd=project.config.root, env=env, timeout=TIMEOUT
                    )
                except StartFailed as e:
                    raise _cannot_start(where, list(self.argv), e) from None
                if done.timed_out:
                    message = f"the typecheck command did not finish within {TIMEOUT:g} seconds"
                elif done.returncode == 0:
                    continue
                else:
                    detail = tail(done.stderr) or tail(done.stdout)
                    message = f"the typecheck command failed (exit code {done.returncode})" + (
                        f": {detail}" if detail else ""
                    )
                problems.append(Problem(message=message, file=skill.skill_md, line=block.line, skill=skill.name))
        return problems


class Coverage(NamedTuple):
    argv: tuple[str, ...]
    helper: None = None
    exact: bool = True  # the command's names are matched exactly as printed

    def names(self, project: Project, answer: Mapping[str, Any] | None) -> list[str]:
        """The names the command prints, one per line, in order, without repeats."""
        where = coverage_where(project.config).key("command")
        try:
            done = run_sync(self.argv, cwd=project.config.root, env=os.environ, timeout=TIMEOUT)
        except StartFailed as e:
            raise _cannot_start(where, list(self.argv), e) from None
        if done.timed_out:
            raise where.error(f"did not finish within {TIMEOUT} seconds; it must print the API names and exit")
        if done.returncode != 0:
            detail = tail(done.stderr) or tail(done.stdout)
            raise where.error(
                f"failed (exit code {done.returncode})" + (f": {detail}" if detail else "") + "; fix the command"
            )
        lines = done.stdout.decode("utf-8", errors="replace").splitlines()
        return list(dict.fromkeys(line.strip() for line in lines if line.strip()))


def typecheck(project: Project, settings: TypecheckConfig | None, warn: Warn) -> Typecheck:
    assert settings is not None and settings.command
    config = project.config
    return Typecheck(tuple(command_argv(config, settings.command, typecheck_where(config).key("command"))))


def coverage(project: Project, settings: CoverageConfig, warn: Warn) -> Coverage:
    assert settings.command
    config = project.config
    return Coverage(tuple(command_argv(config, settings.command, coverage_where(config).key("command"))))
