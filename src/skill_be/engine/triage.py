"""Triage: which failures to look at, what the classifier is asked, and reading its answer."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skill_be.engine.gate import TEST_PREFIX
from skill_be.engine.prompts import (
    DEFAULT_GRADER_RULES,
    WITH_SKILL,
    grader_prompt,
    grader_stable,
    model_prompt,
    model_stable,
)
from skill_be.engine.runner import CallTag, Engine, Model
from skill_be.engine.verdicts import Unparseable, counted, parse_verdicts, parse_with_evidence, quote_span, reasoning
from skill_be.project.loader import Project

CATEGORIES = ("skill gap", "eval too strict", "grader error", "model choice")
TEST_CATEGORIES = ("skill gap", "eval too strict", "test error", "model choice")
_CATEGORY = re.compile(r"^\W*category\W*:\s*\**\s*([a-z ]+?)\s*\**\s*$", re.IGNORECASE | re.MULTILINE)
_REASON = re.compile(r"^\W*reason\W*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Failure:
    skill: str
    scenario: str
    model: str
    line: str  # the criterion, or "[test] <name>"
    why: str  # "universal 0%", "regression" or "below 80%"
    kind: str = "criterion"  # criterion | test (engine/gate.py LineScore.kind)

    @property
    def is_test(self) -> bool:
        return self.kind == "test"


@dataclass(frozen=True)
class Sample:
    answer: str | None  # None: it could not be generated
    error: str | None
    passed: bool | None  # the line's verdict or test result on this sample
    evidence: str  # the grader's reasons, or the test's failure message
    quote: str | None = None  # grader.evidence: the grader's quote for the line
    found: bool | None = None  # whether that quote is in the sample (None: no quote asked)


def classifier_prompt(
    skill_text: str, task: str, failure: Failure, samples: Sequence[Sample], test_source: str | None
) -> str:
    categories = TEST_CATEGORIES if failure.is_test else CATEGORIES
    kind = "code test" if failure.is_test else "criterion"
    meanings = {
        "skill gap": "the skill does not teach it clearly enough",
        "eval too strict": "the answer is correct and idiomatic, but the "
        + kind
        + " demands one form, or something the task did not ask for",
        "grader error": "the answer meets the criterion and the grader still said NO",
        "test error": "the test, not the answer, is wrong",
        "model choice": "the skill is clear and the model picks another reasonable approach",
    }
    parts = [
        f"A model was given a skill (documentation) and a task. One {kind} keeps failing with the skill. "
        "Decide why, from the samples below. Categories:",
        *(f"- {c}: {meanings[c]}" for c in categories),
        "",
        f"The {kind}: {failure.line}",
        "",
        "<skill>",
        skill_text,
        "</skill>",
        "",
        "<task>",
        task,
        "</task>",
    ]
    if test_source is not None:
        parts += ["", "<test-file>", test_source, "</test-file>"]
    for i, s in enumerate(samples, 1):
        verdict = "no answer" if s.passed is None else ("passed" if s.passed else "failed")
        parts += ["", f'<sample n="{i}" result="{verdict}">', s.answer or f"(not generated: {s.error})"]
        if s.evidence:
            parts += ["--- why ---", s.evidence]
        parts.append("</sample>")
    parts += [
        "",
        f"End your reply with two lines: `CATEGORY: <one of {', '.join(categories)}>` and `REASON: <one sentence>`.",
    ]
    return "\n".join(parts)


def parse_classification(reply: str, is_test: bool) -> tuple[str, str] | None:
    allowed = TEST_CATEGORIES if is_test else CATEGORIES
    found = [m.group(1).strip().lower() for m in _CATEGORY.finditer(reply)]
    if not found or found[-1] not in allowed:
        return None
    reasons = [m.group(1).strip() for m in _REASON.finditer(reply)]
    return found[-1], (reasons[-1] if reasons else "")


# Triage asks the grader for its reasons, which the run's gradings leave out to keep replies short.
REASONS = "\n- Before the VERDICTS: line, give one short reason for each criterion, numbered like the criteria."


@dataclass(frozen=True)
class Triaged:
    """One failure's fresh samples and the classifier's proposal (None: unclassified, for `why`)."""

    failure: Failure
    samples: list[Sample]
    reply: str | None  # the classifier's raw reply
    proposal: tuple[str, str] | None  # (category, reason)
    why: str  # why there is no proposal; "" when there is one


class Triage:
    """Fresh with-skill samples of each failure, graded with reasons or code-tested, then classified.
    Every call goes through the engine: the same limit, timeout and error handling as a run."""

    def __init__(
        self,
        engine: Engine,
        project: Project,
        models: Mapping[str, Model],
        classifier: Model | None,
        samples: int,
        test_sources: Mapping[tuple[str, str], str],
    ) -> None:
        self.engine = engine
        self.project = project
        self.models = models
        self.classifier = classifier
        self.samples = samples
        self.test_sources = test_sources  # (skill, scenario) -> the test file's text

    async def _text(self, model: Model, prompt: str, tag: CallTag) -> tuple[str | None, str | None]:
        call = await self.engine.call(model, prompt, (0,), tag)
        return (call.answer.text, None) if call.answer is not None else (None, call.error)

    async def sample(self, f: Failure, model: Model, n: int) -> Sample:
        """Fresh sample `n` (1-based): its own rep in the call's tag, so no two samples are taken for one."""
        skill = next(s for s in self.project.skills if s.name == f.skill)
        sc = skill.evals.scenario(f.scenario)
        assert sc is not None
        prompt = model_prompt(sc, WITH_SKILL, skill.doc.text, self.engine.settings.template)
        stable = model_stable(WITH_SKILL, skill.doc.text, self.engine.settings.template)
        text, error = await self._text(
            model, prompt, CallTag("generate", sc.id, n, WITH_SKILL, attachments=sc.attachments, stable=stable)
        )
        if text is None:
            return Sample(None, error, None, "")
        if f.is_test:
            assert self.engine.tests is not None
            run = await self.engine.tests.run(f.skill, f.scenario, text)
            if run.error:
                return Sample(text, None, None, f"the tests could not run: {run.error}")
            result = next((r for r in run.results if TEST_PREFIX + r.name == f.line), None)
            return Sample(
                text, None, bool(result and result.passed), (result.message or "") if result else "test not found"
            )
        grader = self.engine.grader
        assert grader is not None
        rules = (self.engine.settings.grader_rules or DEFAULT_GRADER_RULES) + REASONS
        evidence = self.engine.settings.evidence
        prompt = grader_prompt(rules, sc.criteria, text, evidence=evidence is not None)
        tag = CallTag("grade", sc.id, n, WITH_SKILL, 1, stable=grader_stable(rules, sc.criteria))
        reply, gerror = await self._text(grader, prompt, tag)
        if reply is None:
            return Sample(text, None, None, f"the grading failed: {gerror}")
        return _graded(reply, text, sc.criteria, f.line, evidence)

    async def one(self, f: Failure) -> Triaged:
        model = self.models.get(f.model)
        if model is None:
            return Triaged(f, [], None, None, f'the model "{f.model}" is no longer in the config')
        got = list(await asyncio.gather(*(self.sample(f, model, n) for n in range(1, self.samples + 1))))
        if all(s.answer is None for s in got):
            return Triaged(f, got, None, None, "no sample could be generated")
        skill = next(s for s in self.project.skills if s.name == f.skill)
        sc = skill.evals.scenario(f.scenario)
        assert sc is not None
        source = self.test_sources.get((f.skill, f.scenario)) if f.is_test else None
        prompt = classifier_prompt(skill.doc.text, sc.prompt, f, got, source)
        reply, error = await self._text(self.classifier or model, prompt, CallTag("classify", sc.id))
        if reply is None:
            return Triaged(f, got, None, None, f"the classification call failed: {error}")
        parsed = parse_classification(reply, f.is_test)
        return Triaged(f, got, reply, parsed, "" if parsed else "the classification could not be read")

    async def all(self, todo: Sequence[Failure]) -> list[Triaged]:
        return list(await asyncio.gather(*(self.one(f) for f in todo)))


def _graded(reply: str, text: str, criteria: Sequence[str], line: str, evidence: str | None) -> Sample:
    """A sample's verdict on `line` from the grader's reply; with grader.evidence, its quote too."""
    try:
        i = criteria.index(line)
        if evidence is None:
            return Sample(text, None, parse_verdicts(reply, len(criteria))[i], reasoning(reply))
        said, quotes = parse_with_evidence(reply, len(criteria))
    except (Unparseable, ValueError):
        return Sample(text, None, None, reasoning(reply))
    found = quote_span(text, quotes[i]) is not None
    passed = counted([said[i]], [found], evidence == "required")[0]
    return Sample(text, None, passed, reasoning(reply), quotes[i], found)
