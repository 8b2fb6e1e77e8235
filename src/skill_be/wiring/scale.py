"""What `run` adds for cost and scale, as named parts a command picks: `Costs` (the cost
lines of each report and their summary.json keys), `CacheUse` (the response cache: `cache: true`,
`--cache`, `--no-cache`, as the engine's call hook), `Sharding` (`--shard K/N`: the engine's unit
filter and shard.json), the JUnit file (`--junit FILE`) and `--dry-run`."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from skill_be.adapters.base import AdapterStartError
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry, labels
from skill_be.engine.cache import CachedCalls
from skill_be.engine.calls import CallHook
from skill_be.engine.pricing import Caller, PlanCount, cache_minimum_of, dry_run_lines, plan_skill, skill_costs
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.engine.runner import Model, Settings, SkillRun, UnitFilter, every_unit
from skill_be.errors import ConfigError, UsageError
from skill_be.paths import shown
from skill_be.project.config import AdapterEntry, Config, Price
from skill_be.project.identity import adapter_identity
from skill_be.project.loader import Project
from skill_be.results.atomic import write_atomic
from skill_be.results.response_cache import ResponseCache, cache_folder
from skill_be.results.shards import ShardWriter, assign, in_shard, parse_shard, plan_id, units
from skill_be.wiring.assembly import Parts, build_judges, build_models, container_only, preflight
from skill_be.wiring.common import warn
from skill_be.wiring.run_files import Extras


def prices_of(config: Config) -> dict[str, Price]:
    """The config's `pricing:` section (the config model validated it)."""
    return dict(config.pricing)


def model_ids(config: Config) -> dict[str, str]:
    """Each model's label -> its id, and the grader's, for looking up prices."""
    entries = list(config.models)
    ids = {label: e.id for e, label in zip(entries, labels(entries), strict=True)}
    for judge in config.graders:
        ids.setdefault(judge.id, judge.id)
    return ids


class Costs:
    """Each skill's token and cost lines for its report, and summary.json's `tokens`, `cost`, `calls`."""

    def __init__(self, config: Config) -> None:
        self.prices = prices_of(config)
        self.ids = model_ids(config)

    def of(self, run: SkillRun, calls: dict[str, int] | None) -> tuple[list[str], dict[str, object]]:
        return skill_costs(run.outputs, self.prices, self.ids, BASELINE, WITH_SKILL, calls)


class CacheUse:
    """The response cache as the engine's call hook, and its counts for the reports and summary.json."""

    def __init__(self, config: Config, *, read_only: bool = False) -> None:
        self.config = config
        folder = cache_folder(config.root)
        # A dry run only reads: it never creates the cache folder or refreshes an entry.
        self.store = ResponseCache(folder, warn) if read_only else ResponseCache.open(folder, warn)

    def hook(self, models: Sequence[Model], judges: Sequence[Model]) -> CallHook:
        config = self.config
        identities = {
            id(m.adapter): adapter_identity(e, config.root) for m, e in zip(models, config.models, strict=True)
        }
        for judge, entry in zip(judges, config.graders, strict=False):
            identities[id(judge.adapter)] = adapter_identity(entry, config.root)
        return CachedCalls(self.store, identities)

    def calls(self, skill: str) -> dict[str, int] | None:
        return self.store.counts(skill) if self.store.enabled else None

    def meta(self) -> dict[str, object]:
        """summary.json's run-level `cache` key."""
        on = self.store.enabled
        return {"cache": {"folder": str(self.store.folder), "calls": self.store.counts()} if on else None}


class Sharding:
    """`run --shard K/N`: this shard's units (the engine's unit filter), its shard.json and its exit."""

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
        self.units: UnitFilter = in_shard(assign(plan, self.shard.of), self.shard)
        self.plan = plan_id(project, names, settings.reps, settings.gradings, self.shard.of)
        self.skills = [s.name for s in project.skills]

    def project(self, project: Project, folder: Path) -> Project:
        """A shard's verdicts go to shard.result.json in its own folder: its gate is partial."""
        return project._replace(config=project.config._replace(result_file=folder / "shard.result.json"))

    def writer(self, folder: Path, redact: Callable[[str], str]) -> ShardWriter:
        return ShardWriter(folder, self.shard, self.plan, self.skills, redact)

    def line(self) -> str:
        return f"Partial run: shard {self.shard.k}/{self.shard.of}; its gate counts only this shard's reps."

    def meta(self) -> dict[str, object]:
        return {"shard": {"index": self.shard.k, "of": self.shard.of, "plan": self.plan}}

    def finish(self, writer: ShardWriter) -> int:
        """A finished shard exits 0 and says so: its own gate is partial, merge decides."""
        writer.write(True)
        s = self.shard
        print(f"Shard {s.k}/{s.of} finished: a partial run; skill-be merge decides the gate.", flush=True)
        return 0


def extras_of(
    costs: Costs, cache: CacheUse | None, lead: Sequence[str] = (), shard: ShardWriter | None = None
) -> Extras:
    """The report lines and summary.json keys of one finished skill (and its shard.json entry)."""

    def extras(run: SkillRun) -> tuple[list[str], dict[str, object]]:
        if shard is not None:
            shard.skill(run)
        lines, keys = costs.of(run, cache.calls(run.skill.name) if cache is not None else None)
        return [*lead, *lines], keys

    return extras


async def dry_run(project: Project, settings: Settings, cache_on: bool, shard: str | None = None) -> int:
    config = project.config
    prices = prices_of(config)
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=Redactor())
    registry = AdapterRegistry()
    models = build_models(config, env, registry)  # every adapter's settings are checked here
    graded = any(sc.criteria for s in project.skills for sc in s.evals.scenarios)
    judges = build_judges(config, env, registry) if graded else []
    entries = [*config.models, *(config.graders if judges else ())]
    boxed = container_only(project, models)
    for entry, model in zip(entries, [*models, *judges], strict=True):
        try:  # a dry run calls nothing, so a CLI that is not installed is a note
            await preflight([entry], [model], env, boxed)
        except AdapterStartError as e:
            warn(f"note: {e} (the dry run calls nothing; a real run stops here with exit code 2)")
    callers = [caller(m, e, config.root) for m, e in zip(models, config.models, strict=True)]
    judge = [caller(m, e, config.root) for m, e in zip(judges, config.graders, strict=True)]
    cache = CacheUse(config, read_only=True).store if cache_on else None
    only = Sharding(project, shard, settings).units if shard is not None else None

    def plans(reps: int) -> list[PlanCount]:
        return [
            plan_skill(
                skill,
                callers,
                judge,
                reps,
                settings.gradings,
                settings.template,
                settings.grader_rules,
                cache,
                only,
                evidence=settings.evidence is not None,
            )
            for skill in project.skills
        ]

    most_reps = config.gate.top_up_reps
    most = (most_reps, plans(most_reps)) if settings.top_up and most_reps > settings.reps else None
    lines = dry_run_lines(plans(settings.reps), prices, model_ids(config), cache_on, most)
    lines += trigger_dry_run(project, settings, callers, cache, prices, shard)  # wiring/trigger_setup.py
    print("\n".join(lines), flush=True)
    return 0


def caller(model: Model, entry: AdapterEntry, root: Path) -> Caller:
    """A model as the dry run's plan sees it: its label, cache identity and prompt-cache minimum."""
    return Caller(model.label, adapter_identity(entry, root), cache_minimum_of(model.adapter))


def trigger_dry_run(
    project: Project,
    settings: Settings,
    callers: list[Caller],
    cache: object,
    prices: dict[str, Price],
    shard: str | None,
) -> list[str]:
    from skill_be.wiring.trigger_setup import dry_run_lines as trigger_lines
    from skill_be.wiring.trigger_setup import shard_of

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


def write_junit(path: Path, skills: Mapping[str, object]) -> Path:
    # only when asked: keeps the XML code and the summary's models off run's path
    from skill_be.reports.junit import junit_xml
    from skill_be.results.summary_file import typed_skills

    try:
        write_atomic(path, junit_xml(typed_skills(skills)))
    except OSError as e:
        raise ConfigError(
            f"{shown(path)}: cannot write the JUnit file ({e.strerror or e}); the run folder is written, "
            "pass --junit a file in a folder you can write"
        ) from None
    return path


def written_with(written: Sequence[Path], junit: Path | None) -> list[Path]:
    return [*written, junit] if junit is not None else list(written)


def engine_seams(parts: Parts, cache: CacheUse | None, sharding: Sharding | None) -> tuple[CallHook | None, UnitFilter]:
    """The call hook and unit filter of a run: the cache when on, this shard's units when sharded."""
    hook = cache.hook(parts.models, parts.judges) if cache is not None else None
    return hook, sharding.units if sharding is not None else every_unit
