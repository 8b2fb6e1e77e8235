"""`skill-be merge DIR...`: the partial runs of `run --shard K/N` put back together into one run
folder, one report per skill, summary.json, the result file and the gate, as one unsharded run with
the same answers would have written them (the same bytes, apart from times).

Refused with one line each: a folder that is not a partial run, a shard that was interrupted, shards
of different plans (config, inputs, models, reps or shard count) or of other inputs than now, a
missing or a duplicate shard.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from skill_be.agents.checks import CHECK_PREFIX, ENTRY_SEP, expand_names
from skill_be.engine.calls import stand_in
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.observations import Output
from skill_be.engine.runner import Engine, SkillRun
from skill_be.errors import UsageError
from skill_be.paths import shown
from skill_be.project.config import Config
from skill_be.project.loader import Skill, load_project
from skill_be.reports.markdown import Header
from skill_be.results.run_dir import RunDir
from skill_be.results.shards import PartialRun, check_set, output_from, plan_id, read_partial
from skill_be.wiring.assembly import engine_settings
from skill_be.wiring.common import warn
from skill_be.wiring.pipeline import check_before_calls, finish
from skill_be.wiring.run_files import RunFiles
from skill_be.wiring.scale import Costs, junit_path
from skill_be.wiring.trigger_setup import merged as merged_triggers

SKIPPED_META = ("schema", "skillBeVersion", "skills", "checks", "shard")


def main(config_path: Path, dirs: Sequence[str] = (), junit: str | None = None) -> int:
    if not dirs:
        raise UsageError("name the run folders of every shard, such as skill-be merge shard-1 shard-2", "merge")
    return asyncio.run(_merge(config_path, [Path(d) for d in dirs], junit))


def _meta(first: PartialRun, parts: Sequence[PartialRun]) -> dict[str, object]:
    """Shard 1's run settings; the cache's counts summed over the shards."""
    meta = {k: v for k, v in first.summary.run_meta().items() if k != "shard"}
    caches = [p.summary.cache for p in parts]
    if caches[0] is not None and all(c is not None for c in caches):
        made = sum(c.calls.made for c in caches if c is not None)
        cached = sum(c.calls.cached for c in caches if c is not None)
        meta["cache"] = {**meta["cache"], "calls": {"made": made, "cached": cached}}
    return meta


def _calls(parts: Sequence[PartialRun], skill: str) -> dict[str, int] | None:
    counts = [s.calls if s is not None else None for s in (p.summary.skills.get(skill) for p in parts)]
    if not counts or any(c is None for c in counts):
        return None
    return {"made": sum(c.made for c in counts if c), "cached": sum(c.cached for c in counts if c)}


def merge_header(config: Config, first: PartialRun) -> Header:
    summary = first.summary
    started = summary.started_at or datetime.now().astimezone().isoformat()
    return Header(
        date=started[:10],
        models=[f"{e.adapter}:{e.id}" for e in config.models],
        labels=[str(m["label"]) for m in summary.models or ()],
        reps=summary.reps or config.reps,
        gradings=summary.gradings or config.gradings,
        grader=config.grader.id,
        grader_adapter=config.grader.adapter,
    )


def merged_lines(
    scenario: str, by_shard: Sequence[tuple[Mapping[str, Sequence[str]], Sequence[Output]]]
) -> tuple[str, ...]:
    """A scenario's line names over the shards, as one unsharded run names them (engine/agent.py
    final_lines): each check by its plain name (a shard that did not run the scenario lists a
    JSON-lines check so), then replaced by the entries its outputs gave, in every shard."""
    base: list[str] = []
    for tests, _ in by_shard:
        for name in tests.get(scenario, ()):
            plain = name.split(ENTRY_SEP, 1)[0] if name.startswith(CHECK_PREFIX) else name
            if plain not in base:
                base.append(plain)
    seen = [[r.name for r in o.tests.results] for _, outs in by_shard for o in outs
            if o.scenario == scenario and o.tests is not None]  # fmt: skip
    return expand_names(base, seen)


async def merged_skill(engine: Engine, skill: Skill, parts: Sequence[PartialRun]) -> SkillRun:
    """One skill's outputs from every shard, scored and gated by the engine as one run's would be."""
    done = [d for d in (p.skills.get(skill.name) for p in parts) if d is not None]
    by_shard = [(d.tests, [output_from(o) for o in d.outputs]) for d in done]
    lines = [ScenarioLines(sc, merged_lines(sc.id, by_shard)) for sc in skill.evals.scenarios]
    outputs = [o for _, outs in by_shard for o in outs]
    return await engine.settle(skill, lines, outputs, max((float(d.seconds) for d in done), default=0.0))


async def _merge(config_path: Path, dirs: list[Path], junit_arg: str | None) -> int:
    partial = [read_partial(d) for d in dirs]
    first = partial[0]
    project = load_project(config_path, first.skill_names, warn=warn)
    previous = check_before_calls(project)
    config = project.config
    junit = junit_path(junit_arg)
    header = merge_header(config, first)
    parts = check_set(partial, plan_id(project, header.labels, header.reps, header.gradings, first.of))
    run_dir = RunDir(config.results, datetime.now().astimezone(), lambda text: text)  # shard texts are redacted
    run_dir.create()
    costs = Costs(config)

    def extras(run: SkillRun) -> tuple[list[str], dict[str, object]]:
        return costs.of(run, _calls(parts, run.skill.name))

    files = RunFiles(project, run_dir, header, _meta(first, parts), previous, html=False, extras=extras)
    # The engine with the shards' models as stand-ins: nothing is called, it scores and gates.
    models = [stand_in(m) for m in first.summary.models or () if m.get("label")]
    engine = Engine(models, None, PriorityLimiter(1), engine_settings(config, header.reps))
    summaries = [p.summary.to_doc() for p in parts]
    for skill in project.skills:
        run = await merged_skill(engine, skill, parts)
        run = merged_triggers(project, run, summaries, header.labels, header.reps)  # wiring/trigger_setup.py
        for o in run.outputs:
            files.output(skill.name, o)
        print(files.skill(run, project.fingerprint(skill)), flush=True)
    return finish(project, files, junit, said=[f"Merged: {', '.join(shown(p.folder) for p in parts)}"])
