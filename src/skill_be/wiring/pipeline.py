"""The steps every benchmarking command shares, so `run`, `regrade` and `merge` are short scripts that
differ only in how they configure them: check before the first call, drive the engine over the
skills (each skill's files written as it finishes), then the checks, the last summary.json, the JUnit
file and the closing lines."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from skill_be.checks import CheckOutcome, run_checks, validate_checks
from skill_be.engine.arms import DEFAULT_ARMS, Arm
from skill_be.engine.calls import CallHook
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.health import Health
from skill_be.engine.observations import Output
from skill_be.engine.runner import Engine, Model, Settings, SkillRun, UnitFilter, every_unit
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill
from skill_be.reports.errors import closing_lines
from skill_be.reports.fake import fake_closing
from skill_be.reports.progress import Progress
from skill_be.results.result_file import ResultEntry, read_result_file
from skill_be.wiring.assembly import Parts
from skill_be.wiring.common import warn
from skill_be.wiring.run_files import RunFiles
from skill_be.wiring.scale import write_junit, written_with

if TYPE_CHECKING:
    from skill_be.engine.agent import AgentSide
    from skill_be.wiring.trigger_setup import TriggerRuns


@asynccontextmanager
async def agents_of(
    project: Project,
    models: list[Model],
    redact: Callable[[str], str],
    warn: Callable[[str], None],
    arms: Sequence[Arm] = DEFAULT_ARMS,
) -> AsyncIterator[AgentSide | None]:
    """wiring/agent_parts.py's `agent_side`; the agent machinery (boxes, drivers, workspaces) is
    imported only when a skill has agent scenarios, so that a run without any does not pay for it."""
    if not any(sc.agent is not None for s in project.skills for sc in s.evals.scenarios):
        yield None
        return
    from skill_be.wiring.agent_parts import agent_side

    async with agent_side(project, models, redact, warn, arms) as side:
        yield side


def check_before_calls(project: Project) -> Mapping[str, ResultEntry]:
    """What can stop the run is found before the first model call: a broken result file, a check
    setting that cannot work. Hint-word warnings print here too. Returns the result file's entries."""
    previous = read_result_file(project.config.result_file)
    validate_checks(project, warn)
    if any(s.evals.triggers is not None or any(sc.agent for sc in s.evals.scenarios) for s in project.skills):
        # Agent scenarios and trigger evals need agent CLIs; the agent machinery is imported only then.
        from skill_be.wiring.agent_parts import check_agents

        check_agents(project, warn)
    if any(sc.attachments for s in project.skills for sc in s.evals.scenarios):
        from skill_be.project.attachments import first_refusal

        refused = first_refusal(project.skills, project.config.models)
        if refused is not None:
            raise ConfigError(refused)
    if any(sc.output for s in project.skills for sc in s.evals.scenarios):
        from skill_be.codetests.hints import hint_warnings

        for line in hint_warnings(project, warn):
            warn(line)
    return dict(previous.skills) if previous else {}


class RunListener:
    """The engine's listener: each finished output goes to the files, then to the progress display."""

    def __init__(self, files: RunFiles, progress: Progress, reps: int) -> None:
        self.files = files
        self.progress = progress
        self.reps = reps

    def output_done(self, skill: Skill, output: Output, lines: ScenarioLines) -> None:
        self.files.output(skill.name, output)
        self.progress.output_done(skill, output, lines, self.reps)

    def rep_done(self, skill: Skill, scenario: str, model: str, rep: int, done: int, total: int) -> None:
        self.progress.rep_done(scenario, model, rep, self.reps, done, total)


async def benchmark(
    project: Project,
    engine: Engine,
    files: RunFiles,
    progress: Progress,
    concurrency: int,
    triggers: TriggerRuns | None = None,
    judge: Callable[[SkillRun], SkillRun] | None = None,
) -> None:
    """Every skill at once under the engine's one limit; each skill's files as soon as it finishes.
    `triggers` runs each skill's trigger calls beside its scenarios (wiring/trigger_setup.py);
    `judge` adds what decides beyond the run's arms (the previous arm, wiring/previous.py)."""
    fingerprints = {s.name: project.fingerprint(s) for s in project.skills}

    async def one(i: int, skill: Skill) -> None:
        progress.skill_started(skill, len(engine.models), engine.settings.reps, concurrency)
        run = await (triggers.run_skill(engine, skill, i) if triggers else engine.run_skill(skill, i))
        run = judge(run) if judge is not None else run
        report = files.skill(run, fingerprints[skill.name])
        if files.terminal is None:  # on a terminal, the summary at the end says it (reports/terminal.py)
            progress.report(report)
        progress.skill_finished(skill, run.seconds)

    async with asyncio.TaskGroup() as group:
        for i, skill in enumerate(project.skills):
            group.create_task(one(i, skill))


async def drive(
    project: Project,
    parts: Parts,
    files: RunFiles,
    settings: Settings,
    concurrency: int,
    *,
    models: Sequence[Model] | None = None,
    hook: CallHook | None = None,
    units: UnitFilter = every_unit,
    arms: Sequence[Arm] = DEFAULT_ARMS,
    agents: AgentSide | None = None,
    triggers: TriggerRuns | None = None,
    judge: Callable[[SkillRun], SkillRun] | None = None,
    interrupted: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """The engine, configured once with what varies, over every skill; the progress display around it.
    `agents` makes agent scenarios' outputs (engine/agent.py), `triggers` adds trigger evals, and
    `interrupted` runs on Ctrl-C before it propagates (run keeps the answers paid for)."""
    progress = Progress()
    listener = RunListener(files, progress, settings.reps)
    engine = parts.engine(
        settings, concurrency, listener, models=models, hook=hook, units=units, arms=arms, agents=agents
    )
    try:
        await benchmark(project, engine, files, progress, concurrency, triggers, judge)
    except asyncio.CancelledError:
        progress.close()
        if interrupted is not None:
            await interrupted()
        raise
    finally:
        progress.close()


def finish(
    project: Project,
    files: RunFiles,
    junit: Path | None,
    shown_project: Project | None = None,
    verdicts: Mapping[str, ResultEntry] | None = None,
    said: Sequence[str] = (),
) -> int:
    """The checks, the last summary.json (with them), the JUnit file, then `said` and the closing lines
    over `verdicts` (default: the result file's) for `shown_project`'s skills (default: all)."""
    outcomes = run_checks(project, warn)
    summary = files.summary(outcomes)
    for line in said:
        print(line, flush=True)
    written = written_with(files.written(summary), write_junit(junit, files.summaries) if junit else None)
    results = files.results if verdicts is None else verdicts
    return closing(shown_project or project, results, outcomes, written, files.errored, fake=files.fake, files=files)


def closing(
    project: Project,
    results: Mapping[str, ResultEntry],
    outcomes: Sequence[CheckOutcome],
    written: Sequence[Path],
    errored: Mapping[str, Health] | None = None,  # RunFiles.errored
    fake: bool = False,
    files: RunFiles | None = None,
) -> int:
    """Print the closing lines (reports/closing.py, reports/errors.py); 3 when a skill could not be
    measured, else 1 when anything blocks. With `files` whose `terminal` is set (run on a terminal),
    the verdict-first summary of reports/terminal.py instead, with the same Result line and code."""
    errored = errored or {}
    ready = {s.name: results[s.name]["ready"] for s in project.skills if s.name not in errored}
    lines, code = closing_lines(ready, errored, outcomes, [shown(p) for p in written])
    if fake:  # run --fake: no verdict to give (reports/fake.py)
        lines, code = fake_closing(lines, code, any(c.blocks for c in outcomes))
    if files is not None and files.terminal is not None:
        lines = terminal_lines(files, outcomes, written, lines[-1])
    print("\n".join(lines), flush=True)
    sys.stdout.flush()
    return code


def terminal_lines(
    files: RunFiles, outcomes: Sequence[CheckOutcome], written: Sequence[Path], result: str
) -> list[str]:
    """reports/terminal.py's summary of what `files` wrote."""
    from skill_be.reports.fake import SKILL_SUFFIX
    from skill_be.reports.terminal import Style, summary_lines

    page = next((p for p in written if p.name == "results.html"), None)
    return summary_lines(
        {name: dict(doc) for name, doc in files.summaries.items() if isinstance(doc, Mapping)},
        [line for c in outcomes for line in c.lines],
        [shown(p) for p in files.reports],
        shown(page) if page else None,
        result,
        files.terminal or Style(),
        SKILL_SUFFIX if files.fake else "",
    )


async def check_graders(project: Project, settings: Settings, concurrency: int, dry_run: bool = False) -> int:
    """`check --graders` and `run --validate`: every reference answer judged as a run would judge it
    (the grader, the code tests, the assertions), each line that disagrees with its `expect` printed
    as one line, the judge's replies kept under `<results>/graders/`. 0 when every line agrees, else 1.
    No model under test is called; with `dry_run`, only the plan is printed."""
    from datetime import datetime

    from skill_be.engine.references import check_references, disagreements, plan, references_of
    from skill_be.reports.references import plan_lines, result_lines
    from skill_be.results.run_dir import RunDir
    from skill_be.wiring.assembly import assemble

    config = project.config
    todo = references_of(project.skills)
    if not todo:
        raise ConfigError(
            f"{shown(config.path)}: no scenario has references; add references (answers with what each line must "
            "give) to a scenario of an eval file (see docs/guide/judge.md)"
        )
    graded = any(sl.scenario.criteria for _, sl, _ in todo)
    if dry_run:
        judges = [j.id for j in config.graders]
        calls = settings.gradings * len(judges)  # each judge grades `gradings` times
        p = plan(project.skills, settings.grader_rules, settings.evidence is not None, calls, judges[0], config.pricing)
        print("\n".join(plan_lines(p, calls, " and ".join(judges))), flush=True)
        return 0
    async with assemble(project, models=False, grader=graded) as parts:
        engine = parts.engine(settings, concurrency)
        checked = await check_references(engine, project.skills)
        run_dir = RunDir(config.results / "graders", datetime.now().astimezone(), parts.redactor)
    found = [d for c in checked for d in disagreements(c)]
    replies: dict[tuple[str, str, int], str] = {}
    if any(d.kind == "criterion" for d in found):
        run_dir.create()
        for c in {(d.checked.skill, d.checked.scenario, d.checked.reference.number): d.checked for d in found}.values():
            run_dir.write_output(c.skill, c.output)
            replies[(c.skill, c.scenario, c.reference.number)] = shown(
                run_dir.output_dir(c.skill, c.scenario, c.output.model)
            )
    print("\n".join(result_lines(found, len(checked), replies)), flush=True)
    return 1 if found else 0
