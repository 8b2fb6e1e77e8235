"""The arms of a benchmark: what each prompt of a scenario shows the model. The engine runs every arm
of `Engine.arms` for each rep; the gate compares the baseline with the with-skill arm. A new kind
(the previous version of the skill) is one more `Arm` with the text it shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from skill_be.engine.prompts import ARM_WORDS, BASELINE, WITH_SKILL, model_prompt
from skill_be.project.evals import Scenario
from skill_be.project.loader import Skill


def _none(skill: Skill) -> str:
    return ""


def _current(skill: Skill) -> str:
    return skill.doc.text


class Arm(NamedTuple):
    name: str  # as outputs, summary.json and the cache keys record it
    words: str  # as a report says it
    text: Callable[[Skill], str] = _none  # the skill text the prompt carries ("" for none)

    def prompt(self, scenario: Scenario, skill: Skill, template: str) -> str:
        return model_prompt(scenario, self.name, self.text(skill), template)


BASELINE_ARM = Arm(BASELINE, ARM_WORDS[BASELINE])
WITH_SKILL_ARM = Arm(WITH_SKILL, ARM_WORDS[WITH_SKILL], _current)
DEFAULT_ARMS: tuple[Arm, ...] = (BASELINE_ARM, WITH_SKILL_ARM)
