"""The typecheck's outcome lines, whatever kind ran it (the kinds are in checks/kinds/)."""

from __future__ import annotations

from collections.abc import Sequence

from skill_be.checks import CheckOutcome, Problem
from skill_be.checks.plan import TypecheckPlan


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
