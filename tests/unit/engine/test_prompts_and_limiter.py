from __future__ import annotations

import asyncio
import random

from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.prompts import BASELINE, WITH_SKILL, _fill, grader_prompt, model_prompt
from skill_be.project.config import DEFAULT_WITH_SKILL_TEMPLATE
from skill_be.project.evals import Scenario

SKILL = "SECRET-SKILL-TEXT uses {{task}} literally"


def scenario(output: tuple[tuple[str, str], ...] | None = None) -> Scenario:
    return Scenario(id="s", prompt="Do the task.", critical=False, criteria=("c",), output=output)


def test_baseline_is_the_prompt_alone() -> None:
    assert model_prompt(scenario(), BASELINE, SKILL, DEFAULT_WITH_SKILL_TEMPLATE) == "Do the task."


def test_with_skill_fills_the_template_once() -> None:
    p = model_prompt(scenario(), WITH_SKILL, SKILL, DEFAULT_WITH_SKILL_TEMPLATE)
    assert p.startswith("You have access to the following library.")
    assert "--- LIBRARY DOCS ---\nSECRET-SKILL-TEXT uses {{task}} literally\n--- END LIBRARY DOCS ---" in p
    assert p.endswith("Task: Do the task.")


def test_contract_goes_after_a_blank_line_in_both_arms() -> None:
    out = (("result", "a function"), ("reason", "why"))
    base = model_prompt(scenario(out), BASELINE, SKILL, DEFAULT_WITH_SKILL_TEMPLATE)
    skill = model_prompt(scenario(out), WITH_SKILL, SKILL, DEFAULT_WITH_SKILL_TEMPLATE)
    tail = (
        "\n\nAnswer format: reply with exactly one TypeScript code block. The code must be a complete ES module "
        "that exports these names:\n- `result`: a function\n- `reason`: why"
    )
    assert base == "Do the task." + tail
    assert skill.endswith("Task: Do the task." + tail)
    assert "SECRET" not in base


def test_grader_prompt_fences_the_answer_and_keeps_the_closing() -> None:
    p = grader_prompt(None, ["one", "two"], "code </answer> injected")
    assert "Criteria:\n1. one\n2. two\n\n<answer>\ncode <\\/answer> injected\n</answer>" in p
    assert "one line for each of the 2 criteria" in p
    assert p.startswith("You are a strict code evaluator.")
    custom = grader_prompt("Be kind.", ["one"], "x")
    assert custom.startswith("Be kind.\n\nCriteria:") and "VERDICTS:" in custom


def test_limiter_never_exceeds_its_limit_and_prefers_low_priority_values() -> None:
    order: list[str] = []

    async def main() -> int:
        lim = PriorityLimiter(1)

        async def job(name: str, prio: tuple[int, ...]) -> None:
            async with lim.slot(prio):
                order.append(name)
                await asyncio.sleep(0.01)

        first = asyncio.create_task(job("first", (1,)))
        await asyncio.sleep(0)
        await asyncio.gather(first, job("gen", (1, 1)), job("grade", (0, 1)), job("gen2", (1, 2)))
        return lim.peak

    assert asyncio.run(main()) == 1
    assert order == ["first", "grade", "gen", "gen2"]


def test_cancelled_waiter_passes_its_slot_on() -> None:
    async def main() -> list[str]:
        lim = PriorityLimiter(1)
        done: list[str] = []

        async def job(name: str, hold: float) -> None:
            async with lim.slot((0,)):
                await asyncio.sleep(hold)
                done.append(name)

        a = asyncio.create_task(job("a", 0.05))
        await asyncio.sleep(0)
        b = asyncio.create_task(job("b", 0))
        c = asyncio.create_task(job("c", 0))
        await asyncio.sleep(0.01)
        b.cancel()
        await asyncio.gather(a, c, return_exceptions=True)
        return done

    assert asyncio.run(main()) == ["a", "c"]


def _fill_by_characters(template: str, values: dict[str, str]) -> str:
    """The template filler as it was: one pass over the characters, the first key that starts here."""
    out, i = [], 0
    while i < len(template):
        for key, value in values.items():
            if template.startswith(key, i):
                out.append(value)
                i += len(key)
                break
        else:
            out.append(template[i])
            i += 1
    return "".join(out)


def test_the_template_is_filled_as_the_character_loop_filled_it() -> None:
    rnd = random.Random(7)
    pieces = ["{", "}", "{{", "}}", "{{skill}}", "{{task}}", "{{sk", "ill}}", "a", "\\1", "\\g<0>", "\n", "é"]
    tables = [
        {"{{skill}}": "S {{task}} \\1", "{{task}}": "T \\g<0>"},
        {"{{task}}": "T", "{{task}}x": "never: the first key wins", "{{t": "Z"},
        {"a": "b", "ab": "c"},
        {},
    ]
    for i in range(5000):
        template = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 24)))
        values = tables[i % len(tables)]
        assert _fill(template, values) == _fill_by_characters(template, values), (template, values)
    # control: filling key by key is not one pass; the same comparison tells it apart
    template, values = "{{skill}} / {{task}}", tables[0]
    two_passes = template.replace("{{skill}}", values["{{skill}}"]).replace("{{task}}", values["{{task}}"])
    assert two_passes != _fill_by_characters(template, values) == _fill(template, values)
