"""What `run` adds for cost and scale (issue 14): `--dry-run` (everything a run checks before its
first model call, then the plan it would carry out: calls per skill and in total, how many the cache
holds, estimated tokens and cost; no model call at all), the response cache (`cache: true`, `--cache`,
`--no-cache`), the cost and cache lines of each report, `--junit FILE` and `--shard K/N`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from skill_be.adapters.base import AdapterStartError
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry, labels
from skill_be.commands.assembly import build_models, preflight
from skill_be.commands.common import warn
from skill_be.commands.run_files import RunFiles
from skill_be.engine.cache import CachedCalls, adapter_identity
from skill_be.engine.pricing import Caller, PlanCount, Price, dry_run_lines, parse_pricing, plan_skill, skill_costs
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.engine.runner import Engine, Model, Settings, SkillRun
from skill_be.errors import ConfigError, UsageError
from skill_be.paths import shown
from skill_be.project.config import Config
from skill_be.project.loader import Project
from skill_be.project.where import Where
from skill_be.reports.markdown import Header
from skill_be.results.atomic import write_atomic
from skill_be.results.response_cache import ResponseCache, cache_folder
from skill_be.results.result_file import ResultEntry
from skill_be.results.run_dir import RunDir
from skill_be.results.shards import ShardWriter, assign, in_shard, parse_shard, plan_id, units


def prices_of(config: Config) -> dict[str, Price]:
    """The config's `pricing:` section, validated (a mistake stops the command before any call)."""
    return parse_pricing(config.pricing, Where(config.name).key("pricing")) if config.pricing else {}


def model_ids(config: Config) -> dict[str, str]:
    """Each model's label -> its id, and the grader's, for looking up prices."""
    entries = list(config.models)
    ids = {label: e.id for e, label in zip(entries, labels(entries), strict=True)}
    ids.setdefault(config.grader.id, config.grader.id)
    return ids


async def dry_run(project: Project, settings: Settings, cache_on: bool, shard: str | None = None) -> int:
    config = project.config
    prices = prices_of(config)
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=Redactor())
    registry = AdapterRegistry()
    models = build_models(config, env, registry)  # every adapter's settings are checked here
    graded = any(sc.criteria for s in project.skills for sc in s.evals.scenarios)
    grader = Model(config.grader.id, registry.create(config.grader, env)) if graded else None
    entries = [*config.models, *([config.grader] if grader else [])]
    for entry, model in zip(entries, [*models, *([grader] if grader else [])], strict=True):
        try:  # hook: issue 20, a dry run calls nothing, so a CLI that is not installed is a note
            await preflight([entry], [model], env)
        except AdapterStartError as e:
            warn(f"note: {e} (the dry run calls nothing; a real run stops here with exit code 2)")
    callers = [Caller(m.label, adapter_identity(e, config.root)) for m, e in zip(models, config.models, strict=True)]
    judge = Caller(config.grader.id, adapter_identity(config.grader, config.root)) if grader else None
    # Read only: a dry run never creates the cache folder or refreshes an entry.
    cache = ResponseCache(cache_folder(config.root), warn) if cache_on else None

    only = Sharding(project, shard, settings).only if shard is not None else None

    def plans(reps: int) -> list[PlanCount]:
        return [
            plan_skill(
                skill, callers, judge, reps, settings.gradings, settings.template, settings.grader_rules, cache, only
            )
            for skill in project.skills
        ]

    most_reps = config.gate.top_up_reps
    most = (most_reps, plans(most_reps)) if settings.top_up and most_reps > settings.reps else None
    lines = dry_run_lines(plans(settings.reps), prices, model_ids(config), cache_on, most)
    lines += trigger_dry_run(project, settings, callers, cache, prices, shard)  # commands/trigger_setup.py
    print("\n".join(lines), flush=True)
    return 0


def trigger_dry_run(
    project: Project,
    settings: Settings,
    callers: list[Caller],
    cache: object,
    prices: dict[str, Price],
    shard: str | None,
) -> list[str]:
    from skill_be.commands.trigger_setup import dry_run_lines as trigger_lines
    from skill_be.commands.trigger_setup import shard_of

    only = shard_of(project, [c.label for c in callers], settings.reps, parse_shard(shard)) if shard else None
    return trigger_lines(project, settings.reps, callers, cache, prices, model_ids(project.config), only)  # type: ignore[arg-type]


def junit_path(text: str | None) -> Path | None:
    """`--junit FILE`, checked before the first call: it must name a file, not a folder."""
    if text is None:
        return None
    if not text.strip():
        raise UsageError("--junit: needs a file, such as --junit skill-be.junit.xml", "run")
    path = Path(text)
    if path.is_dir():
        raise UsageError(
            f"--junit: {shown(path)} is a folder; name a file, such as {shown(path / 'skill-be.junit.xml')}", "run"
        )
    return path


def write_junit(path: Path, skills: object) -> Path:
    from skill_be.reports.junit import junit_xml  # only when asked: keeps the XML code off run's path

    try:
        write_atomic(path, junit_xml(skills if isinstance(skills, dict) else {}))
    except OSError as e:
        raise ConfigError(
            f"{shown(path)}: cannot write the JUnit file ({e.strerror or e}); the run folder is written, "
            "pass --junit a file in a folder you can write"
        ) from None
    return path


class Sharding:
    """`run --shard K/N`: this shard's units, and its shard.json (results/shards.py)."""

    def __init__(self, project: Project, text: str, settings: Settings) -> None:
        if settings.top_up:
            raise UsageError(
                "--shard and --top-up cannot go together: a top-up decides its reps from every rep of a "
                "scenario, which another shard holds; run the top-up unsharded",
                "run",
            )
        config = project.config
        self.shard = parse_shard(text)
        names = labels(list(config.models))
        graded = any(sc.criteria for s in project.skills for sc in s.evals.scenarios)
        plan = units(project, names, settings.reps, settings.gradings, graded)
        self.only = in_shard(assign(plan, self.shard.of), self.shard)
        self.plan = plan_id(project, names, settings.reps, settings.gradings, self.shard.of)
        self.skills = [s.name for s in project.skills]
        self.writer: ShardWriter | None = None


class RunScale:
    """The run's cache, prices and shard: wired into the engine and the run's files, counted at the end."""

    def __init__(self, project: Project, cache_on: bool, shard: str | None = None, settings: Settings | None = None):
        config = project.config
        self.project = project
        self.prices = prices_of(config)  # a bad pricing section stops the run before any call
        self.ids = model_ids(config)
        self.sharding = Sharding(project, shard, settings) if shard is not None and settings is not None else None
        self.cache = ResponseCache.open(cache_folder(config.root), warn) if cache_on else None

    def run_files(
        self,
        run_dir: RunDir,
        header: Header,
        meta: Mapping[str, object],
        previous: Mapping[str, ResultEntry],
        html: bool,
    ) -> RunFiles:
        """The run's file writer. A shard writes its verdicts to shard.result.json in its own folder (its
        gate is partial: merge decides the real one) and keeps shard.json up to date."""
        project = self.project
        if self.sharding is not None:
            s = self.sharding
            project = project._replace(config=project.config._replace(result_file=run_dir.path / "shard.result.json"))
            previous = {}
            s.writer = ShardWriter(run_dir.path, s.shard, s.plan, s.skills, run_dir.redact)
        files = RunFiles(project, run_dir, header, meta, previous, html)
        files.extras = self.skill_extras
        return files

    def finish(self, code: int) -> int:
        """The exit code: a shard's own gate is partial, so a finished shard exits 0 and says so."""
        if self.sharding is None or self.sharding.writer is None:
            return code
        self.sharding.writer.write(True)
        s = self.sharding.shard
        print(f"Shard {s.k}/{s.of} finished: a partial run; skill-be merge decides the gate.", flush=True)
        return 0

    def attach(self, engine: Engine) -> None:
        if self.sharding is not None:
            engine.only = self.sharding.only
        if self.cache is None:
            return
        config = self.project.config
        identities = {
            id(m.adapter): adapter_identity(e, config.root) for m, e in zip(engine.models, config.models, strict=True)
        }
        if engine.grader is not None:
            identities[id(engine.grader.adapter)] = adapter_identity(config.grader, config.root)
        engine.cache = CachedCalls(self.cache, identities, [s.name for s in self.project.skills])

    def skill_extras(self, run: SkillRun) -> tuple[list[str], dict[str, object]]:
        """The report lines and summary.json keys of one finished skill."""
        if self.sharding is not None and self.sharding.writer is not None:
            self.sharding.writer.skill(run)
        calls = self.cache.counts(run.skill.name) if self.cache is not None and self.cache.enabled else None
        lines, keys = skill_costs(run.outputs, self.prices, self.ids, BASELINE, WITH_SKILL, calls)
        if self.sharding is not None:
            s = self.sharding.shard
            lines.insert(0, f"Partial run: shard {s.k}/{s.of}; its gate counts only this shard's reps.")
        return lines, keys

    def meta(self) -> dict[str, object]:
        """summary.json's run-level `cache` key (null when off), and `shard` in a partial run."""
        doc: dict[str, object] = {"cache": None}
        if self.cache is not None and self.cache.enabled:
            doc["cache"] = {"folder": str(self.cache.folder), "calls": self.cache.counts()}
        if self.sharding is not None:
            doc["shard"] = {"index": self.sharding.shard.k, "of": self.sharding.shard.of, "plan": self.sharding.plan}
        return doc


def written_with(written: Sequence[Path], junit: Path | None) -> list[Path]:
    return [*written, junit] if junit is not None else list(written)
