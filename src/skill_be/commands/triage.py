"""`skill-be triage`: fresh with-skill samples of each failing line of the latest run, graded with
reasons, and a proposed classification for a person to confirm. Never blocks."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from skill_be.adapters.base import CallContext
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.commands.common import warn
from skill_be.commands.run import build_models, interruptible, open_code_tests, preflight
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.prompts import DEFAULT_GRADER_RULES, WITH_SKILL, grader_prompt, model_prompt
from skill_be.engine.runner import CodeTests, Model
from skill_be.engine.triage import Failure, Sample, classifier_prompt, failures, parse_classification
from skill_be.engine.verdicts import Unparseable, parse_verdicts, reasoning
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project, load_project
from skill_be.reports.strings import TEST_PREFIX
from skill_be.results.atomic import write_atomic
from skill_be.results.run_dir import run_id

REASONS = "\n- Before the VERDICTS: line, give one short reason for each criterion, numbered like the criteria."


def main(
    config_path: Path, skills: Sequence[str] = (), below: int | None = None, samples: int = 2, keep_deps: bool = False
) -> int:
    return asyncio.run(interruptible(lambda: _triage(config_path, list(skills), below, samples, keep_deps)))


def latest_run(results: Path) -> Path:
    runs = sorted(p for p in results.glob("*") if (p / "summary.json").is_file()) if results.is_dir() else []
    if not runs:
        raise ConfigError(f'{shown(results)}: no earlier run to triage (no summary.json); run "skill-be run" first')
    return runs[-1]


class _Triage:
    def __init__(self, project: Project, models: dict[str, Model], grader: Model | None, classifier: Model | None,
                 tests: CodeTests | None, limit: int, samples: int) -> None:  # fmt: skip
        self.project = project
        self.models = models
        self.grader = grader
        self.classifier = classifier
        self.tests = tests
        self.limiter = PriorityLimiter(limit)
        self.samples = samples
        self.timeout = project.config.timeout_seconds

    async def call(self, model: Model, prompt: str) -> tuple[str | None, str | None]:
        async with self.limiter.slot((0,)):
            ctx = CallContext(timeout_seconds=self.timeout, cwd=self.project.config.root)
            try:
                answer = await asyncio.wait_for(model.adapter.complete(prompt, ctx), self.timeout)
                return answer.text, None
            except TimeoutError:
                return None, f"timed out after {self.timeout} s"
            except Exception as e:  # one failed call is a fact about that sample
                return None, str(e) or type(e).__name__

    async def sample(self, f: Failure, model: Model) -> Sample:
        skill = next(s for s in self.project.skills if s.name == f.skill)
        sc = skill.evals.scenario(f.scenario)
        assert sc is not None
        text, error = await self.call(
            model, model_prompt(sc, WITH_SKILL, skill.doc.text, self.project.config.with_skill_template)
        )
        if text is None:
            return Sample(None, error, None, "")
        if f.is_test:
            assert self.tests is not None
            run = await self.tests.run(f.skill, f.scenario, text)
            if run.error:
                return Sample(text, None, None, f"the tests could not run: {run.error}")
            result = next((r for r in run.results if TEST_PREFIX + r.name == f.line), None)
            return Sample(
                text, None, bool(result and result.passed), (result.message or "") if result else "test not found"
            )
        assert self.grader is not None
        rules = (self.project.config.grader_prompt or DEFAULT_GRADER_RULES) + REASONS
        reply, gerror = await self.call(self.grader, grader_prompt(rules, sc.criteria, text))
        if reply is None:
            return Sample(text, None, None, f"the grading failed: {gerror}")
        try:
            verdict: bool | None = parse_verdicts(reply, len(sc.criteria))[sc.criteria.index(f.line)]
        except (Unparseable, ValueError):
            verdict = None
        return Sample(text, None, verdict, reasoning(reply))

    async def one(self, f: Failure) -> tuple[Failure, list[Sample], str | None, tuple[str, str] | None, str]:
        model = self.models.get(f.model)
        if model is None:
            return f, [], None, None, f'the model "{f.model}" is no longer in the config'
        got = list(await asyncio.gather(*(self.sample(f, model) for _ in range(self.samples))))
        if all(s.answer is None for s in got):
            return f, got, None, None, "no sample could be generated"
        skill = next(s for s in self.project.skills if s.name == f.skill)
        sc = skill.evals.scenario(f.scenario)
        assert sc is not None
        source = None
        if f.is_test and f.scenario in skill.test_files:
            source = skill.test_files[f.scenario].read_text(encoding="utf-8", errors="replace")
        classifier = self.classifier or model
        reply, error = await self.call(classifier, classifier_prompt(skill.doc.text, sc.prompt, f, got, source))
        if reply is None:
            return f, got, None, None, f"the classification call failed: {error}"
        parsed = parse_classification(reply, f.is_test)
        return f, got, reply, parsed, "" if parsed else "the classification could not be read"


async def _triage(config_path: Path, names: list[str], below: int | None, samples: int, keep_deps: bool) -> int:
    project = load_project(config_path, names, warn=warn)
    config = project.config
    run_dir = latest_run(config.results)
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    todo = failures(summary, [s.name for s in project.skills], below)
    errors = {
        n: s.get("errors", 0) for n, s in summary.get("skills", {}).items() if n in {s.name for s in project.skills}
    }
    redactor = Redactor()
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=redactor)
    registry = AdapterRegistry()
    models = {m.label: m for m in build_models(config, env, registry)} if todo else {}
    needs_grader = any(not f.is_test for f in todo)
    grader = Model(config.grader.id, registry.create(config.grader, env)) if needs_grader else None
    classifier = (
        Model(config.triage_model.id, registry.create(config.triage_model, env))
        if config.triage_model and todo
        else None
    )
    entries = [
        *(config.models if todo else ()),
        *([config.grader] if grader else []),
        *([config.triage_model] if classifier and config.triage_model else []),
    ]
    await preflight(
        entries, [*models.values(), *([grader] if grader else []), *([classifier] if classifier else [])], env
    )
    tested = project._replace(
        skills=tuple(s for s in project.skills if any(f.is_test and f.skill == s.name for f in todo))
    )
    tests, close_tests = await open_code_tests(tested, keep_deps)
    try:
        t = _Triage(project, models, grader, classifier, tests, config.concurrency, samples)
        results = list(await asyncio.gather(*(t.one(f) for f in todo)))
    finally:
        await close_tests()
    stamp = run_id(datetime.now().astimezone())
    report = run_dir / f"triage-{stamp}.md"
    write_atomic(report, redactor(_report(results, errors, run_dir)))
    lines = [f"Triage: {len(results)} failure(s)"]
    for f, _, _, parsed, why in results:
        head = f'  {f.skill} [{f.scenario}] {f.model} "{f.line}"'
        lines.append(f"{head}: {parsed[0]} — {parsed[1]}" if parsed else f"{head}: unclassified ({why})")
    for name, n in errors.items():
        if n:
            lines.append(f"  {name}: {n} error(s) not triaged (they name no criterion)")
    lines.append(f"Report: {shown(report)}")
    print(redactor("\n".join(lines)))
    return 0


def _report(results: Sequence[tuple[Failure, list[Sample], str | None, tuple[str, str] | None, str]],
            errors: dict[str, int], run_dir: Path) -> str:  # fmt: skip
    out = [f"# Triage of {run_dir.name}", "", "Each proposal is for a person to confirm; triage never blocks.", ""]
    for f, got, reply, parsed, why in results:
        out += [f"## {f.skill} [{f.scenario}] {f.model}", "", f"*{f.line}* ({f.why})", ""]
        out.append(f"**Proposal:** {parsed[0]} — {parsed[1]}" if parsed else f"**Unclassified:** {why}")
        for i, s in enumerate(got, 1):
            verdict = "no verdict" if s.passed is None else ("passed" if s.passed else "failed")
            out += ["", f"### Sample {i}: {verdict}", ""]
            out += [s.answer if s.answer is not None else f"(not generated: {s.error})"]
            if s.evidence:
                out += ["", "Why:", "", s.evidence]
        if reply:
            out += ["", "### The classifier's reply", "", reply]
        out.append("")
    for name, n in errors.items():
        if n:
            out += [f"{name}: {n} error(s) of the run are not triaged: they name no criterion.", ""]
    return "\n".join(out)
