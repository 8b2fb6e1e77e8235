"""The previous-version arm of `run --against REF`: the skill as it was at REF, shown as a third arm
(`previous`), and its plan per scenario (engine/arms.py `RUN`, `REUSE`, `SKIP`). wiring/previous.py reads
the skills at REF (results/previous.py) and builds it from `Then`; the gate rule on its comparison is
engine/gate.py's `gate.previous` (`rule_outcomes`)."""

from __future__ import annotations

from typing import NamedTuple

from skill_be.engine.arms import REUSE, RUN, SKIP, Arm
from skill_be.engine.prompts import ARM_WORDS, PREVIOUS
from skill_be.project.evals import Scenario
from skill_be.project.loader import Skill


class Then(NamedTuple):
    """One skill at REF, as the previous arm shows it: the old skill (None: it did not exist) and,
    for a changed skill, the scenarios whose prompt, criteria, output contract and tests are as they
    were (the only ones the previous arm runs)."""

    skill: Skill | None
    unchanged: bool  # its fingerprint at REF equals this branch's: reuse the with-skill answers
    comparable: frozenset[str] = frozenset()


def previous_arm(then: dict[str, Then]) -> Arm:
    """The `previous` arm over each skill's state at REF (by skill name; a name it lacks: SKIP)."""

    def version(skill: Skill) -> Skill | None:
        t = then.get(skill.name)
        return t.skill if t is not None else None

    def plan(skill: Skill, scenario: Scenario) -> str:
        t = then.get(skill.name)
        if t is None or t.skill is None:
            return SKIP
        if t.unchanged:
            return REUSE
        return RUN if scenario.id in t.comparable else SKIP

    return Arm(PREVIOUS, ARM_WORDS[PREVIOUS], version, plan)
