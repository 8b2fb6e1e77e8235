"""`skill-be run`: both arms of every scenario, graded and code-tested, gated, reported and recorded.

The run as named steps: read and check the project, assemble the parts (models, grader, code
tests), open the run folder, benchmark each skill (engine → files → progress), run the checks,
print the closing lines."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from skill_be.checks import CheckOutcome, run_checks, validate_checks
from skill_be.commands.agent_parts import agent_side, check_agents
from skill_be.commands.assembly import Parts, assemble, engine_settings, interruptible
from skill_be.commands.common import warn
from skill_be.commands.interrupted import keep_partial
from skill_be.commands.run_files import RunFiles
from skill_be.commands.scale import RunScale, dry_run, junit_path, write_junit, written_with
from skill_be.commands.trigger_setup import TriggerRuns, trigger_runs
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.health import Health
from skill_be.engine.observations import Output
from skill_be.engine.runner import Engine, Settings
from skill_be.engine.topup import check_top_up
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill, load_project
from skill_be.project.trigger_plan import check_triggers
from skill_be.project.writable import check_run_folders
from skill_be.reports.errors import closing_lines
from skill_be.reports.markdown import Header
from skill_be.reports.progress import Progress
from skill_be.results.result_file import ResultEntry, read_result_file
from skill_be.results.run_dir import RunDir


@dataclass(frozen=True)
class Options:
    reps: int | None = None
    concurrency: int | None = None
    keep_deps: bool = False
    html: bool = False
    cache: bool = False  # --cache (or cache: true in the config) turns the response cache on
    no_cache: bool = False  # --no-cache wins over both
    junit: str | None = None  # --junit FILE
    dry_run: bool = False
    top_up: bool = False  # --top-up: engine/topup.py
    shard: str | None = None  # --shard K/N: results/shards.py


def main(
    config_path: Path,
    skills: Sequence[str] = (),
    reps: int | None = None,
    concurrency: int | None = None,
    keep_deps: bool = False,
    html: bool = False,
    cache: bool = False,
    no_cache: bool = False,
    junit: str | None = None,
    dry_run: bool = False,
    top_up: bool = False,
    shard: str | None = None,
) -> int:
    options = Options(reps, concurrency, keep_deps, html, cache, no_cache, junit, dry_run, top_up, shard)
    return asyncio.run(interruptible(lambda: _run(config_path, list(skills), options)))


async def _run(config_path: Path, names: list[str], options: Options) -> int:
    project = load_project(config_path, names, warn=warn)
    previous = check_before_calls(project)
    config = project.config
    settings = engine_settings(config, options.reps)
    check_top_up(config.gate, options.top_up, shown(config.path))
    settings = replace(settings, top_up=options.top_up)
    concurrency = options.concurrency or config.concurrency
    junit = junit_path(options.junit)
    cache_on = (config.cache or options.cache) and not options.no_cache
    check_triggers(project, warn)  # commands/trigger_setup.py: trigger evals, checked before any call
    if options.dry_run:
        return await dry_run(project, settings, cache_on, options.shard)
    # hook: issue 20, a folder the run cannot write is exit 2 before the first call
    check_run_folders(config.name, config.results, config.result_file)
    scale = RunScale(project, cache_on, options.shard, settings)  # commands/scale.py: cache, prices, shard
    started = datetime.now().astimezone()
    graded = any(sc.criteria for s in project.skills for sc in s.evals.scenarios)
    async with (
        assemble(project, grader=graded, keep_deps=options.keep_deps) as parts,
        agent_side(project, parts.models, parts.redactor, warn) as agents,  # issue 17: agent scenarios
    ):
        header = report_header(project, parts, settings, started)
        run_dir = RunDir(config.results, started, parts.redactor)
        run_dir.create()
        meta = {**run_meta(project, parts, settings, concurrency, started), **scale.meta()}
        files = scale.run_files(run_dir, header, meta, previous, options.html)
        progress = Progress()
        engine = parts.engine(settings, concurrency, RunListener(files, progress, settings.reps))
        scale.attach(engine)
        triggers = trigger_runs(project, parts, settings, options.shard)
        engine.agents = agents
        try:
            await benchmark(project, engine, files, progress, concurrency, triggers)
        except asyncio.CancelledError:  # hook: issue 20, Ctrl-C keeps the answers paid for
            progress.close()
            await keep_partial(files, project, header.labels, settings.reps)
            raise
        finally:
            progress.close()
    outcomes = run_checks(project, warn)
    files.meta.update(scale.meta())
    summary = files.summary(outcomes)
    written = written_with(files.written(summary), write_junit(junit, files.summaries) if junit else None)
    return scale.finish(closing(project, files.results, outcomes, written, files.errored))


def check_before_calls(project: Project) -> Mapping[str, ResultEntry]:
    """What can stop the run is found before the first model call: a broken result file, a check
    setting that cannot work. Hint-word warnings print here too. Returns the result file's entries."""
    previous = read_result_file(project.config.result_file)
    validate_checks(project, warn)
    check_agents(project)  # issue 17: agent scenarios need agent CLIs (commands/agent_parts.py)
    if any(sc.output for s in project.skills for sc in s.evals.scenarios):
        from skill_be.codetests.hints import hint_warnings

        for line in hint_warnings(project, warn):
            warn(line)
    return dict(previous.skills) if previous else {}


def report_header(project: Project, parts: Parts, settings: Settings, started: datetime) -> Header:
    config = project.config
    return Header(
        date=started.strftime("%Y-%m-%d"),
        models=[f"{e.adapter}:{e.id}" for e in config.models],
        labels=[m.label for m in parts.models],
        reps=settings.reps,
        gradings=settings.gradings,
        grader=config.grader.id,
        grader_adapter=config.grader.adapter,
    )


def run_meta(
    project: Project, parts: Parts, settings: Settings, concurrency: int, started: datetime
) -> dict[str, object]:
    """summary.json's keys about the run itself."""
    return {
        "startedAt": started.isoformat(timespec="milliseconds"),
        "config": str(project.config.path),
        "reps": settings.reps,
        "gradings": settings.gradings,
        "concurrency": concurrency,
        "timeoutSeconds": settings.timeout_seconds,
        **parts.describe(),
    }


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
) -> None:
    """Every skill at once under the engine's one limit; each skill's files as soon as it finishes."""
    fingerprints = {s.name: project.fingerprint(s) for s in project.skills}

    async def one(i: int, skill: Skill) -> None:
        progress.skill_started(skill, len(engine.models), engine.settings.reps, concurrency)
        run = await (triggers.run_skill(engine, skill, i) if triggers else engine.run_skill(skill, i))
        progress.report(files.skill(run, fingerprints[skill.name]))
        progress.skill_finished(skill, run.seconds)

    async with asyncio.TaskGroup() as group:
        for i, skill in enumerate(project.skills):
            group.create_task(one(i, skill))


def closing(
    project: Project,
    results: Mapping[str, ResultEntry],
    outcomes: Sequence[CheckOutcome],
    written: Sequence[Path],
    errored: Mapping[str, Health] | None = None,  # hook: issue 20, RunFiles.errored
) -> int:
    """Print the closing lines (reports/closing.py, reports/errors.py); 3 when a skill could not be
    measured, else 1 when anything blocks."""
    errored = errored or {}
    ready = {s.name: results[s.name].ready for s in project.skills if s.name not in errored}
    lines, code = closing_lines(ready, errored, outcomes, [shown(p) for p in written])
    print("\n".join(lines), flush=True)
    sys.stdout.flush()
    return code
