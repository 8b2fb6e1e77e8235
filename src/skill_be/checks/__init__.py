"""The checks that need no model: typecheck and coverage (and, with code tests, their parse).

This module stays light: the Node and TypeScript machinery is imported only when a check that
needs it is configured, so `verify` with the checks off starts nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from skill_be.paths import shown

if TYPE_CHECKING:
    from skill_be.project.loader import Project


class Problem(NamedTuple):
    """One problem a check found, with its place so a report or annotation can point at it."""

    message: str
    file: Path | None = None
    line: int | None = None
    skill: str | None = None

    def text(self) -> str:
        """`skill "money", SKILL.md line 52: error TS2554: ...` or `skill-tests/x.ts line 3: ...`."""
        place = ""
        if self.file is not None:
            place = "SKILL.md" if self.skill and self.file.name == "SKILL.md" else shown(self.file)
            if self.line is not None:
                place += f" line {self.line}"
        parts = [p for p in (f'skill "{self.skill}"' if self.skill else "", place) if p]
        return f"{', '.join(parts)}: {self.message}" if parts else self.message

    def as_json(self) -> dict[str, object]:
        return {
            "skill": self.skill,
            "file": shown(self.file) if self.file is not None else None,
            "line": self.line,
            "message": self.message,
        }


class CheckOutcome(NamedTuple):
    """What one check prints and whether it blocks the command."""

    name: str  # "typecheck", "coverage", "code tests"
    lines: tuple[str, ...]  # printed as they are, the first one starting with "<name>: "
    blocks: bool = False
    blocker: str = ""  # how the Result line names it: "the typecheck"
    problems: tuple[Problem, ...] = ()


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_checks(project: Project, warn: Callable[[str], None]) -> list[CheckOutcome]:
    """Run every configured check over the project's skills, in the reference's order: the
    typecheck, then coverage. A bad check setting is a ConfigError (exit 2)."""
    checks = project.config.checks
    if checks.typecheck is False and checks.coverage is None:
        # Both off: nothing to set up, so verify need not import the checks' machinery (start-up time).
        return [CheckOutcome("typecheck", ("typecheck: off",)), CheckOutcome("coverage", ("coverage: off",))]
    from skill_be.checks.runner import collect

    return collect(project, warn).outcomes


def validate_checks(project: Project, warn: Callable[[str], None] = _stderr) -> None:
    """Raise ConfigError for a check setting that cannot work (a library or prelude that does not
    exist, a prelude naming no skill, no Node.js, a command that cannot start). Cheap when the
    checks are off; may install skill-be's own TypeScript on first use."""
    from skill_be.checks.runner import prepare

    prepare(project, warn)
