"""The arms of a benchmark: what each prompt of a scenario shows the model. The engine runs every arm
of `Engine.arms` for each rep; the gate compares the baseline with the with-skill arm.

An arm shows a *version* of the skill: none (baseline), this branch's (with skill), or the skill as
it was at an earlier commit (`previous`, `run --against REF`: engine/previous.py decides its plan,
wiring/previous.py builds it).
Its `plan` says, per skill and scenario, whether the engine makes its outputs (`RUN`), takes the
with-skill arm's outputs as its own (`REUSE`: the skill did not change since REF, so the same text
would be sent), or has none (`SKIP`: the skill did not exist at REF, or the scenario changed since,
so an output would measure something else)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from skill_be.engine.prompts import ARM_WORDS, BASELINE, WITH_SKILL, model_prompt
from skill_be.project.evals import Scenario
from skill_be.project.loader import Skill

RUN, REUSE, SKIP = "run", "reuse", "skip"


def _none(skill: Skill) -> Skill | None:
    return None


def _current(skill: Skill) -> Skill | None:
    return skill


def _always(skill: Skill, scenario: Scenario) -> str:
    return RUN


class Arm(NamedTuple):
    name: str  # as outputs, summary.json and the cache keys record it
    words: str  # as a report says it
    version: Callable[[Skill], Skill | None] = _none  # the skill this arm shows (None: no skill)
    plan: Callable[[Skill, Scenario], str] = _always  # RUN | REUSE | SKIP (module doc)

    def text(self, skill: Skill) -> str:
        """The skill text the prompt carries ("" for none)."""
        shown = self.version(skill)
        return shown.doc.text if shown is not None else ""

    def prompt(self, scenario: Scenario, skill: Skill, template: str) -> str:
        return model_prompt(scenario, self.name, self.text(skill), template)


BASELINE_ARM = Arm(BASELINE, ARM_WORDS[BASELINE])
WITH_SKILL_ARM = Arm(WITH_SKILL, ARM_WORDS[WITH_SKILL], _current)
DEFAULT_ARMS: tuple[Arm, ...] = (BASELINE_ARM, WITH_SKILL_ARM)
