"""`skill-be run`: both arms of every scenario, graded and code-tested, gated, reported and recorded."""

from __future__ import annotations

import asyncio
import importlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypeVar, cast

from skill_be.adapters.credentials import Redactor, api_key
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry, check_unique, labels
from skill_be.checks import CheckOutcome, run_checks, validate_checks
from skill_be.commands.common import result_line, warn
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.observations import Output
from skill_be.engine.runner import CodeTests, Engine, Model, Settings, SkillRun
from skill_be.errors import Interrupted
from skill_be.paths import shown
from skill_be.project.config import AdapterEntry, Config
from skill_be.project.loader import Project, Skill, load_project
from skill_be.reports.markdown import Header, skill_report
from skill_be.reports.progress import Progress
from skill_be.reports.summary import run_summary, skill_summary
from skill_be.results.result_file import ResultEntry, read_result_file, write_result_file
from skill_be.results.run_dir import RunDir

T = TypeVar("T")


def main(
    config_path: Path,
    skills: Sequence[str] = (),
    reps: int | None = None,
    concurrency: int | None = None,
    keep_deps: bool = False,
    html: bool = False,
) -> int:
    return asyncio.run(interruptible(lambda: _run(config_path, list(skills), reps, concurrency, keep_deps, html)))


async def interruptible(work: Callable[[], Awaitable[T]]) -> T:
    """SIGINT and SIGTERM cancel the work: every call in flight is killed on the way out, then the
    command exits 130 or 143. Skills that finished are already written."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[int] = []

    def stop(signum: int) -> None:
        if not received:
            received.append(signum)
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await work()
    except asyncio.CancelledError:
        if received:
            name = "SIGINT" if received[0] == signal.SIGINT else "SIGTERM"
            warn(f"{name}: stopped the model calls in flight; the skills that finished are written")
            raise Interrupted(received[0]) from None
        raise
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


@dataclass
class _Run:
    project: Project
    run_dir: RunDir
    header: Header
    labels: list[str]
    progress: Progress
    reps: int
    results: dict[str, ResultEntry]
    summaries: dict[str, object] = field(default_factory=dict)
    reports: list[Path] = field(default_factory=list)
    verdicts: dict[str, bool] = field(default_factory=dict)
    meta: dict[str, object] = field(default_factory=dict)
    html: bool = False
    texts: dict[str, str] = field(default_factory=dict)  # for results.html: answers by output file
    replies: dict[str, list[str]] = field(default_factory=dict)  # and each grading's last reply

    # The engine's listener: files and progress as each output and rep finishes.
    def output_done(self, skill: Skill, output: Output, lines: ScenarioLines) -> None:
        self.run_dir.write_output(skill.name, output)
        if self.html:
            file = self.output_file(skill.name)(output)
            key = (
                file.relative_to(self.run_dir.path).as_posix()
                if file
                else f"{skill.name}/{output.scenario}/{output.model}/{output.rep}/{output.arm}"
            )
            if output.text is not None:
                self.texts[key] = output.text
            self.replies[key] = [g.replies[-1] if g.replies else "" for g in output.gradings]
        self.progress.output_done(skill, output, lines, self.reps)

    def rep_done(self, skill: Skill, scenario: str, model: str, rep: int, done: int, total: int) -> None:
        self.progress.rep_done(scenario, model, rep, self.reps, done, total)

    def output_file(self, skill: str) -> Callable[[Output], Path | None]:
        def file(o: Output) -> Path | None:
            return self.run_dir.output_file(skill, o) if o.text is not None else None

        return file

    def skill_finished(self, run: SkillRun, fingerprint: str) -> None:
        """Report, summary.json and result file after every skill, so an interrupted run keeps it."""
        name = run.skill.name
        report = skill_report(run, self.header)
        self.reports.append(self.run_dir.write_report(name, report))
        self.progress.clear()  # on a terminal, the report must not start on the status line
        print(report, flush=True)
        self.progress.redraw()
        self.progress.skill_finished(run.skill, run.seconds)
        self.verdicts[name] = run.gate.ready
        self.summaries[name] = skill_summary(run, self.labels, fingerprint, self.output_file(name), self.run_dir.path)
        self.results[name] = ResultEntry(
            date=self.header.date,
            fingerprint=fingerprint,
            ready=run.gate.ready,
            reasons=tuple(run.gate.reasons()),
            models=tuple(self.labels),
            grader=self.header.grader,
        )
        self.write_summary(None)
        write_result_file(self.project.config.result_file, self.results)

    def write_summary(self, checks: Sequence[CheckOutcome] | None) -> Path:
        ordered = {s.name: self.summaries[s.name] for s in self.project.skills if s.name in self.summaries}
        doc = run_summary(self.meta, ordered, checks)
        if self.html:
            from skill_be.reports.html import render_html

            self.run_dir.write_page("results.html", render_html(doc, self.texts, self.replies))
        return self.run_dir.write_summary(doc)


def build_models(config: Config, env: AdapterEnv, registry: AdapterRegistry) -> list[Model]:
    entries = list(config.models)
    check_unique(entries)
    return [
        Model(label, registry.create(e, AdapterEnv(env.root, env.environ, env.redactor, label)))
        for e, label in zip(entries, labels(entries), strict=True)
    ]


async def preflight(entries: Sequence[AdapterEntry], models: Sequence[Model], env: AdapterEnv) -> None:
    """Before the first model call: credentials hold (the CI rule) and every adapter can start."""
    for entry in entries:
        env.redactor.add(api_key(entry, env.environ))
    for m in models:
        await m.adapter.preflight()


async def open_code_tests(project: Project, keep_deps: bool) -> tuple[CodeTests | None, Callable[[], Awaitable[None]]]:
    async def nothing() -> None:
        return None

    if not any(s.has_code_tests for s in project.skills):
        return None, nothing
    # Imported only when a skill has code tests: the sandbox brings Docker and Node machinery.
    session_module = importlib.import_module("skill_be.codetests.session")
    session = await session_module.CodeTestSession.open(project, keep_deps=keep_deps, warn=warn)
    return cast(CodeTests, session), cast(Callable[[], Awaitable[None]], session.close)


async def _run(
    config_path: Path, names: list[str], reps: int | None, concurrency: int | None, keep_deps: bool, html: bool
) -> int:
    project = load_project(config_path, names, warn=warn)
    config = project.config
    previous = read_result_file(config.result_file)  # a broken one stops the run before any call
    validate_checks(project, warn)  # a bad check setting stops the run before the first model call
    if any(sc.output for s in project.skills for sc in s.evals.scenarios):
        from skill_be.codetests.hints import hint_warnings

        for line in hint_warnings(project, warn):
            warn(line)
    redactor = Redactor()
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=redactor)
    registry = AdapterRegistry()
    models = build_models(config, env, registry)
    graded = any(sc.criteria for s in project.skills for sc in s.evals.scenarios)
    grader = (
        Model(
            config.grader.id,
            registry.create(config.grader, AdapterEnv(env.root, env.environ, redactor, config.grader.id)),
        )
        if graded
        else None
    )
    entries = [*config.models, *([config.grader] if graded else [])]
    await preflight(entries, [*models, *([grader] if grader else [])], env)

    settings = Settings(
        reps=reps or config.reps,
        gradings=config.gradings,
        timeout_seconds=config.timeout_seconds,
        cwd=config.root,
        template=config.with_skill_template,
        grader_rules=config.grader_prompt,
        gate=config.gate,
    )
    limit = concurrency or config.concurrency
    started = datetime.now().astimezone()
    header = Header(
        date=started.strftime("%Y-%m-%d"),
        models=[f"{e.adapter}:{e.id}" for e in config.models],
        labels=[m.label for m in models],
        reps=settings.reps,
        gradings=settings.gradings,
        grader=config.grader.id,
        grader_adapter=config.grader.adapter,
    )
    tests, close_tests = await open_code_tests(project, keep_deps)
    try:
        run_dir = RunDir(config.results, started, redactor)
        run_dir.create()
        state = _Run(
            project=project,
            run_dir=run_dir,
            header=header,
            labels=list(header.labels),
            progress=Progress(),
            reps=settings.reps,
            results=dict(previous.skills) if previous else {},
            html=html,
        )
        state.meta = {
            "startedAt": started.isoformat(timespec="milliseconds"),
            "config": str(config.path),
            "reps": settings.reps,
            "gradings": settings.gradings,
            "concurrency": limit,
            "timeoutSeconds": settings.timeout_seconds,
            "models": [{"label": m.label, **m.adapter.describe()} for m in models],
            "grader": {"label": grader.label, **grader.adapter.describe()} if grader else None,
            "codeTests": dict(getattr(tests, "describe", dict)()) if tests else None,
        }
        engine = Engine(models, grader, PriorityLimiter(limit), settings, state, tests, redactor)
        fingerprints = {s.name: project.fingerprint(s) for s in project.skills}

        async def one(i: int, skill: Skill) -> None:
            state.progress.skill_started(skill, len(models), settings.reps, limit)
            run = await engine.run_skill(skill, i)
            state.skill_finished(run, fingerprints[skill.name])

        try:
            async with asyncio.TaskGroup() as group:
                for i, skill in enumerate(project.skills):
                    group.create_task(one(i, skill))
        finally:
            state.progress.close()
    finally:
        await close_tests()

    outcomes = run_checks(project, warn)
    summary = state.write_summary(outcomes)
    return _closing(state, outcomes, summary)


def _closing(state: _Run, outcomes: Sequence[CheckOutcome], summary: Path) -> int:
    lines = ["Skills:"]
    lines += [f"  {s.name}: {'READY' if state.verdicts[s.name] else 'NOT READY'}" for s in state.project.skills]
    blockers: list[str] = []
    not_ready = [s.name for s in state.project.skills if not state.verdicts[s.name]]
    if not_ready:
        blockers.append(f"the release gate (NOT READY: {', '.join(not_ready)})")
    for c in outcomes:
        lines += c.lines
        if c.blocks:
            blockers.append(c.blocker)
    lines.append("Written:")
    written = [*state.reports, summary]
    if state.html:
        written.append(state.run_dir.path / "results.html")
    lines += [f"  {shown(p)}" for p in [*written, state.project.config.result_file]]
    lines.append(result_line(blockers))
    print("\n".join(lines), flush=True)
    sys.stdout.flush()
    return 1 if blockers else 0
