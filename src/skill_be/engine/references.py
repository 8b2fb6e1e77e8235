"""Reference answers, checked before a run (`check --graders`, `run --validate`): each one graded
by the configured judge `gradings` times, code-tested and checked without a model, exactly as a run
would judge an answer, and every line whose result disagrees with the reference's `expect` kept as
a typed value (`reports/references.py` words it). No model under test is called."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skill_be.engine.gate import TEST_PREFIX, ScenarioLines
from skill_be.engine.observations import Output
from skill_be.engine.pricing import GRADING_TOKENS, Tokens, price_for, tokens_of
from skill_be.engine.prompts import grader_prompt
from skill_be.engine.runner import Engine
from skill_be.project.config import Price
from skill_be.project.loader import Skill
from skill_be.project.references import Reference

REFERENCE = "reference"  # the arm and model label a reference's output carries


@dataclass(frozen=True)
class Checked:
    """One reference answer as the run's judging saw it."""

    skill: str
    scenario: str
    reference: Reference
    output: Output
    tests: tuple[str, ...]
    criteria: tuple[str, ...] = ()  # the scenario's criteria, then every scored line (criteria, assertions, budget)
    scored: tuple[str, ...] = ()


@dataclass(frozen=True)
class Disagreement:
    """A line whose result on a reference is not what the reference expects. `got` None: the line
    gave no result (the code tests could not run, or no such test)."""

    checked: Checked
    line: str
    kind: str  # criterion | assertion | test
    expected: bool
    got: bool | None
    why: str = ""  # a test's message, the tests' error, or what is missing
    index: int = -1  # a criterion's place among the scenario's criteria (its gradings' verdicts)


def references_of(skills: Sequence[Skill]) -> list[tuple[Skill, ScenarioLines, Reference]]:
    return [(s, ScenarioLines(sc, ()), r) for s in skills for sc in s.evals.scenarios for r in sc.references]


async def check_references(engine: Engine, skills: Sequence[Skill]) -> list[Checked]:
    """Every reference of every skill judged as a run judges an answer (concurrently, under the
    engine's limit)."""
    lines = {(s.name, sl.scenario.id): sl for s in skills for sl in engine.lines(s)}

    async def one(i: int, skill: Skill, sl: ScenarioLines, ref: Reference) -> Checked:
        real = lines[(skill.name, sl.scenario.id)]
        out = Output(scenario=sl.scenario.id, model=REFERENCE, rep=ref.number, arm=REFERENCE, text=ref.text)
        await engine.judge(out, skill, i, sl.scenario, f"reference {ref.number}")
        sc = sl.scenario
        return Checked(skill.name, sc.id, ref, out, real.tests, sc.criteria, sc.scored)

    todo = references_of(skills)
    return list(await asyncio.gather(*(one(i, s, sl, r) for i, (s, sl, r) in enumerate(todo))))


def disagreements(checked: Checked) -> list[Disagreement]:
    """The lines of one reference whose result differs from its `expect`, in the order it lists them."""
    out, criteria, scored = checked.output, checked.criteria, checked.scored
    names = [*scored, *(TEST_PREFIX + t for t in checked.tests)]
    got = dict(zip(names, out.passes(len(scored), checked.tests), strict=True))
    tests = {TEST_PREFIX + r.name: r for r in out.tests.results} if out.tests and not out.tests.error else {}
    found: list[Disagreement] = []
    for line, want in checked.reference.expect:
        kind = "test" if line.startswith(TEST_PREFIX) else "criterion" if line in criteria else "assertion"
        if kind == "test":
            error = out.tests.error if out.tests else "the scenario has no code tests"
            if line not in got:
                found.append(Disagreement(checked, line, kind, want, None, error or "no such code test"))
                continue
            if out.tests is None or out.tests.error:
                found.append(Disagreement(checked, line, kind, want, None, error or "the code tests did not run"))
                continue
            result = tests.get(line)
            if result is not None and result.passed != want:
                found.append(Disagreement(checked, line, kind, want, result.passed, result.message or ""))
            continue
        failed = [g.error for g in out.gradings if g.verdicts is None]
        if kind == "criterion" and out.gradings and len(failed) == len(out.gradings):
            why = f"every grading failed ({failed[-1]})"
            found.append(Disagreement(checked, line, kind, want, None, why, criteria.index(line)))
        elif got.get(line) != want:
            at = criteria.index(line) if kind == "criterion" else -1
            found.append(Disagreement(checked, line, kind, want, got.get(line), "", at))
    return found


@dataclass(frozen=True)
class ReferencePlan:
    references: int
    calls: int
    tokens: Tokens
    cost: float | None  # None: the grader has no price in the config


def plan(
    skills: Sequence[Skill], rules: str | None, evidence: bool, gradings: int, grader: str, prices: Mapping[str, Price]
) -> ReferencePlan:
    """What `check --graders` would cost: one grading call per reference of a scenario with criteria,
    `gradings` times; prompt tokens from the real prompt, GRADING_TOKENS out per reply."""
    tokens = Tokens()
    calls = 0
    todo = references_of(skills)
    for _, sl, ref in todo:
        sc = sl.scenario
        if not sc.criteria:
            continue
        prompt = grader_prompt(rules, sc.criteria, ref.text, sc.judge_context, evidence)
        calls += gradings
        tokens.add(tokens_of(len(prompt)) * gradings, GRADING_TOKENS * gradings)
    return ReferencePlan(len(todo), calls, tokens, tokens.cost(price_for(prices, grader, grader)))
