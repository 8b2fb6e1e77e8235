"""The checks that need no model: typecheck and coverage (and, with code tests, their parse)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from skill_be.project.loader import Project


@dataclass(frozen=True)
class Problem:
    """One problem a check found, with its place so a report or annotation can point at it."""

    message: str
    file: Path | None = None
    line: int | None = None
    skill: str | None = None


@dataclass(frozen=True)
class CheckOutcome:
    """What one check prints and whether it blocks the command."""

    name: str  # "typecheck", "coverage", "code tests"
    lines: tuple[str, ...]  # printed as they are, the first one starting with "<name>: "
    blocks: bool = False
    blocker: str = ""  # how the Result line names it: "the typecheck"
    problems: tuple[Problem, ...] = field(default_factory=tuple)


def run_checks(project: Project, warn: Callable[[str], None]) -> list[CheckOutcome]:
    """Run every configured check over the project's skills, in the reference's order."""
    outcomes: list[CheckOutcome] = []
    checks = project.config.checks
    if checks.typecheck is False or checks.typecheck is None:
        outcomes.append(CheckOutcome("typecheck", ("typecheck: off",)))
    if checks.coverage is None:
        outcomes.append(CheckOutcome("coverage", ("coverage: off",)))
    return outcomes
