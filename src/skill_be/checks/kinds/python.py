"""The Python preset: every python block compiles (with `mypy: true`, type-checks), and a module's
public API, read statically, is what coverage counts. No Node helper."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.checks import Problem
from skill_be.checks.kinds import Warn
from skill_be.checks.plan import coverage_where
from skill_be.project.config import CoverageConfig, TypecheckConfig
from skill_be.project.loader import Project


class Typecheck(NamedTuple):
    settings: TypecheckConfig | None
    helper: None = None

    def problems(self, project: Project, answer: Mapping[str, Any] | None, warn: Warn) -> list[Problem]:
        from skill_be.checks.typecheck_python import python_problems

        return python_problems(project, self.settings)


class Coverage(NamedTuple):
    module: Path
    helper: None = None
    exact: bool = False

    def names(self, project: Project, answer: Mapping[str, Any] | None) -> list[str]:
        from skill_be.checks.python_api import public_api

        return public_api(self.module)


def typecheck(project: Project, settings: TypecheckConfig | None, warn: Warn) -> Typecheck:
    if settings is not None and settings.mypy:
        from skill_be.checks.typecheck_python import check_mypy_installed

        check_mypy_installed(project.config)
    return Typecheck(settings)


def coverage(project: Project, settings: CoverageConfig, warn: Warn) -> Coverage:
    from skill_be.checks.python_api import locate_module

    config = project.config
    return Coverage(locate_module(settings.entry or "", config.root, coverage_where(config).key("entry")))
