"""`skill-be run`: both arms of every scenario, graded and code-tested, gated, reported and recorded.

The run as named steps (wiring/pipeline.py): read and check the project, assemble the parts
(models, grader, code tests), open the run folder, drive the engine over each skill with the run's
call hook (the response cache) and unit filter (a shard), then the checks and the closing lines."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from skill_be.adapters.fake import NAME as FAKE
from skill_be.engine.arms import DEFAULT_ARMS
from skill_be.engine.runner import Settings, SkillRun
from skill_be.errors import UsageError
from skill_be.paths import shown
from skill_be.project.config import AdapterEntry, Config, GateConfig
from skill_be.project.loader import Project, load_project
from skill_be.project.trigger_plan import check_triggers
from skill_be.project.writable import check_run_folders
from skill_be.reports.markdown import Header
from skill_be.reports.terminal import Style, colour_on
from skill_be.results.git_files import Base, resolve
from skill_be.results.result_file import ResultEntry
from skill_be.results.run_dir import RunDir
from skill_be.wiring.assembly import Parts, assemble, engine_settings, interruptible
from skill_be.wiring.common import warn
from skill_be.wiring.interrupted import keep_partial
from skill_be.wiring.pipeline import agents_of, check_before_calls, check_graders, drive, finish
from skill_be.wiring.previous import PreviousVersion, merged_extras, previous_version
from skill_be.wiring.run_files import RunFiles, base_of
from skill_be.wiring.scale import CacheUse, Costs, Sharding, dry_run, engine_seams, extras_of, junit_path
from skill_be.wiring.trigger_setup import trigger_runs

if TYPE_CHECKING:
    from skill_be.wiring.batch import Batching


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
    against: str | None = None  # --against REF (or compare.against): the previous arm, wiring/previous.py
    base: str | None = None  # --base REF: compare the result file with REF's (results/base.py)
    fake: bool = False  # --fake: every model and the grader answer with the fake adapter (adapters/fake.py)
    color: str = "auto"  # --color: the terminal summary's colour (reports/terminal.py)
    validate: bool = False  # --validate: the reference answers first (wiring/pipeline.py check_graders)
    batch: bool = False  # --batch (or batch: true): provider batches (wiring/batch.py)
    resume: str | None = None  # --resume FOLDER: an interrupted batch run, its batches fetched


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
    against: str | None = None,
    base: str | None = None,
    validate: bool = False,
    fake: bool = False,
    color: str = "auto",
    batch: bool = False,
    resume: str | None = None,
) -> int:
    options = Options(reps, concurrency, keep_deps, html, cache, no_cache, junit, dry_run, top_up, shard, against)
    options = replace(options, base=base, validate=validate, fake=fake, color=color, batch=batch, resume=resume)
    return asyncio.run(interruptible(lambda: _run(config_path, list(skills), options)))


async def _run(config_path: Path, names: list[str], options: Options) -> int:
    journal = None
    if options.resume is not None:  # batch mode's modules (pydantic models) only when a run uses it
        from skill_be.wiring.batch import resume_of

        journal = resume_of(options.resume, options.shard)
    if journal is not None:  # the interrupted run's skills and reps, unless given again
        names = names or journal.skills
        options = replace(options, reps=options.reps or journal.reps)
    project = load_project(config_path, names, warn=warn, placeholders=options.fake)
    if options.fake:
        project = faked(project)
    if options.batch or project.config.batch or journal is not None:
        from skill_be.wiring.batch import batch_priced, check_batch

        check_batch(project.config, journal is not None)  # before any call: every model has a batch API
        project = batch_priced(project)  # every cost figure at the batch price
        options = replace(options, batch=True)
    previous = check_before_calls(project)
    config = project.config
    settings = replace(engine_settings(config, options.reps), top_up=options.top_up, pairwise=config.pairwise)
    check_top_up(config.gate, options.top_up, shown(config.path))
    concurrency = options.concurrency or config.concurrency
    junit = junit_path(options.junit)
    cache_on = (config.cache or options.cache) and not options.no_cache
    check_triggers(project, warn)  # wiring/trigger_setup.py: trigger evals, checked before any call
    warn_same_family(project)
    against = options.against or config.against
    if against and options.shard is not None:
        raise UsageError(
            f"--shard: a sharded run has no previous arm yet; drop --against {against} (or compare.against in "
            f"{shown(config.path)}) for the shards, or run unsharded",
            "run",
        )
    base = base_of(project, options.base, options.shard)  # run --base: a ref git lacks stops here
    if options.validate and await check_graders(project, settings, concurrency, options.dry_run):
        print("Stopped before the benchmark: a line disagrees with a reference answer (run --validate)", flush=True)
        return 1
    if options.dry_run:
        if against:
            print(f"Not in this plan: the previous arm (--against {against}) of each skill changed since then.")
        if options.batch:
            from skill_be.reports.strings import BATCH_DRY_RUN

            print(BATCH_DRY_RUN, flush=True)
        return await dry_run(project, settings, cache_on, options.shard)
    # a folder the run cannot write is exit 2 before the first call
    check_run_folders(config.name, config.results, config.result_file)
    costs = Costs(config)  # a bad pricing section stops the run before any call
    with previous_version(project, against) as arm:  # the previous arm, wiring/previous.py
        return await _benchmark(project, options, settings, concurrency, junit, cache_on, costs, previous, arm, base)


async def _benchmark(
    project: Project,
    options: Options,
    settings: Settings,
    concurrency: int,
    junit: Path | None,
    cache_on: bool,
    costs: Costs,
    previous: Mapping[str, ResultEntry],
    against: PreviousVersion | None,
    base: tuple[Path, Base] | None,
) -> int:
    config = project.config
    sharding = Sharding(project, options.shard, settings) if options.shard is not None else None
    cache = CacheUse(config) if cache_on else None
    started = datetime.now().astimezone()
    graded = any(sc.criteria for s in project.skills for sc in s.evals.scenarios)
    arms = against.arms if against else DEFAULT_ARMS
    async with (
        assemble(project, grader=graded, keep_deps=options.keep_deps) as parts,
        agents_of(project, parts.models, parts.redactor, warn, arms) as agents,  # agent scenarios
    ):
        header = report_header(project, parts, settings, started)
        run_dir = RunDir(config.results, started, parts.redactor)
        batching = batch_run(run_dir, project, options)
        shard = sharding.writer(run_dir.path, run_dir.redact) if sharding else None
        files = RunFiles(
            sharding.project(project, run_dir.path) if sharding else project,
            run_dir,
            header,
            {**run_meta(project, parts, settings, concurrency, started), **scale_meta(cache, sharding)},
            {} if sharding else previous,  # a shard's result file starts empty
            options.html,
            merged_extras(
                extras_of(costs, cache, [sharding.line()] if sharding else (), shard),
                *([against.extras] if against else []),
            ),
            fake=is_fake(config),
        )
        files.terminal = terminal_style(options.color)
        if against is not None:
            print("\n".join(against.plan_lines()), flush=True)
        hook, units = engine_seams(parts, cache, sharding)
        triggers = trigger_runs(project, parts, settings, options.shard)  # wiring/trigger_setup.py

        async def kept() -> None:  # Ctrl-C keeps the answers paid for
            await keep_partial(files, project, header.labels, settings.reps)

        try:
            await drive(
                project, batching.wrap(parts) if batching else parts, files, settings, concurrency,
                hook=hook, units=units, agents=agents, triggers=triggers, interrupted=kept,
                arms=arms, judge=pairwise_judge(config.pairwise_gate, against.judge if against else None),
            )  # fmt: skip
        except BaseException:  # Ctrl-C (or a failure)
            await stopped(run_dir, batching)
            raise
    files.meta.update(scale_meta(cache, sharding))  # the cache's final counts
    code = finish(project, files, junit, said=files.compare_with_base(base))  # run --base: the comparison
    return sharding.finish(shard) if sharding and shard else code


async def stopped(run_dir: RunDir, batching: Batching | None) -> None:
    """A run stopped: a batch being submitted is journaled first (a resume fetches it); a run stopped
    before its first output leaves no empty run folder."""
    if batching is not None:
        await batching.drain()
    run_dir.drop_if_empty()


def batch_run(run_dir: RunDir, project: Project, options: Options) -> Batching | None:
    """The run folder made (or, with --resume, the interrupted run's taken again) and, in batch mode,
    its journal and batchers (wiring/batch.py)."""
    if options.resume is None:
        run_dir.create()
    if not options.batch:
        return None
    from skill_be.results.batch_journal import BatchJournal, read_journal
    from skill_be.wiring.batch import Batching

    if options.resume is not None:
        run_dir.path = Path(options.resume)
        return Batching(project.config, read_journal(run_dir.path))
    names = [s.name for s in project.skills]
    return Batching(project.config, BatchJournal.start(run_dir.path, project.config.path, names, options.reps))


def pairwise_judge(gate: bool, then: Callable[[SkillRun], SkillRun] | None) -> Callable[[SkillRun], SkillRun] | None:
    """compare.pairwiseGate: the blind A/B's one block (reports/pairwise.py) joins the gate's rules,
    after `then` (the previous arm's judge)."""
    if not gate:
        return then

    def judge(run: SkillRun) -> SkillRun:
        from skill_be.engine.gate import with_rules
        from skill_be.engine.pairwise import baseline_preferred

        run = then(run) if then is not None else run
        block = baseline_preferred(run.pairwise)
        return replace(run, gate=with_rules(run.gate, [block])) if block else run

    return judge


def warn_same_family(project: Project) -> None:
    """A judge of the same provider family as a model under test: said once per pair, before any call."""
    from skill_be.project.families import same_family
    from skill_be.reports.judge import SAME_FAMILY

    config = project.config
    if any(sc.criteria for s in project.skills for sc in s.evals.scenarios):
        for judge, model, family in same_family(config.graders, config.models):
            warn(SAME_FAMILY.format(judge=judge, model=model, family=family))


def faked(project: Project) -> Project:
    """run --fake: the project with every model, the grader and the triage model on the fake adapter
    (adapters/fake.py), each under its own id, so the same config runs for real without the flag."""
    config = project.config

    def fake(entry: AdapterEntry) -> AdapterEntry:
        return entry._replace(adapter=FAKE, settings={})

    config = config._replace(
        models=tuple(fake(e) for e in config.models),
        grader=fake(config.grader),
        triage_model=fake(config.triage_model) if config.triage_model else None,
    )
    return project._replace(config=config)


def terminal_style(color: str) -> Style | None:
    """The verdict-first summary's style when stdout is a terminal (or --color always); None: the
    reference's output, each report on stdout (reports/terminal.py)."""
    tty = sys.stdout.isatty()
    if not tty and color != "always":
        return None
    return Style(colour_on(color, tty, os.environ))


def is_fake(config: Config) -> bool:
    """A run with a fake model or grader measures nothing: never READY, no result file."""
    return any(e.adapter == FAKE for e in (*config.models, config.grader))


def scale_meta(cache: CacheUse | None, sharding: Sharding | None) -> dict[str, object]:
    """summary.json's run-level `cache` key (null when off), and `shard` in a partial run."""
    return {**(cache.meta() if cache else {"cache": None}), **(sharding.meta() if sharding else {})}


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
        judges=[m.label for m in parts.judges],
    )


def run_meta(
    project: Project, parts: Parts, settings: Settings, concurrency: int, started: datetime
) -> dict[str, object]:
    """summary.json's keys about the run itself; `commit` only inside a git repository."""
    commit = resolve(project.config.path.parent, "HEAD")
    return {
        "startedAt": started.isoformat(timespec="milliseconds"),
        "config": str(project.config.path),
        **({"commit": commit} if commit else {}),
        "reps": settings.reps,
        "gradings": settings.gradings,
        "concurrency": concurrency,
        "timeoutSeconds": settings.timeout_seconds,
        **parts.describe(),
    }


def check_top_up(config: GateConfig, top_up: bool, config_name: str) -> None:
    """--top-up only has something to do under the evidence rule: say so before any model call."""
    if top_up and config.rule != "evidence":
        raise UsageError(
            f"--top-up: tops up what the evidence rule finds inconclusive, but {config_name} has gate.rule: "
            f"{config.rule}; set gate.rule: evidence there, or drop --top-up",
            "run",
        )
