"""`skill-be merge DIR...`: the partial runs of `run --shard K/N` put back together into one run
folder, one report per skill, summary.json, the result file and the gate, as one unsharded run with
the same answers would have written them (the same bytes, apart from times).

Refused with one line each: a folder that is not a partial run, a shard that was interrupted, shards
of different plans (config, inputs, models, reps or shard count) or of other inputs than now, a
missing or a duplicate shard.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.checks import run_checks
from skill_be.commands.common import warn
from skill_be.commands.run import check_before_calls, closing
from skill_be.commands.run_files import RunFiles
from skill_be.commands.scale import junit_path, model_ids, prices_of, write_junit, written_with
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.pricing import skill_costs
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.engine.runner import SkillRun
from skill_be.engine.topup import settle
from skill_be.errors import UsageError
from skill_be.paths import shown
from skill_be.project.loader import load_project
from skill_be.reports.markdown import Header
from skill_be.results.run_dir import RunDir
from skill_be.results.shards import PartialRun, check_set, output_from, plan_id, read_partial

SKIPPED_META = ("schema", "skillBeVersion", "skills", "checks", "shard")


class Label(NamedTuple):
    label: str


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


async def _nothing(*_: Any) -> None:
    raise AssertionError("merge never tops up")  # pragma: no cover - settle is called with top_up False


async def _merge(config_path: Path, dirs: list[Path], junit_arg: str | None) -> int:
    partial = [read_partial(d) for d in dirs]
    first = partial[0]
    project = load_project(config_path, first.skill_names, warn=warn)
    previous = check_before_calls(project)
    config = project.config
    junit = junit_path(junit_arg)
    summary = first.summary
    labels = [str(m["label"]) for m in summary.models or ()]
    reps, gradings = summary.reps or config.reps, summary.gradings or config.gradings
    parts = check_set(partial, plan_id(project, labels, reps, gradings, first.of))
    started = summary.started_at or datetime.now().astimezone().isoformat()
    header = Header(
        date=started[:10],
        models=[f"{e.adapter}:{e.id}" for e in config.models],
        labels=labels,
        reps=reps,
        gradings=gradings,
        grader=config.grader.id,
        grader_adapter=config.grader.adapter,
    )
    run_dir = RunDir(config.results, datetime.now().astimezone(), lambda text: text)  # shard texts are redacted
    run_dir.create()
    files = RunFiles(project, run_dir, header, _meta(first, parts), previous, html=False)
    prices, ids = prices_of(config), model_ids(config)

    def extras(run: SkillRun) -> tuple[list[str], dict[str, object]]:
        return skill_costs(run.outputs, prices, ids, BASELINE, WITH_SKILL, _calls(parts, run.skill.name))

    files.extras = extras
    for skill in project.skills:
        done = [d for d in (p.skills.get(skill.name) for p in parts) if d is not None]
        tests: dict[str, list[str]] = {}
        for d in done:
            tests.update(d.tests)
        lines = [ScenarioLines(sc, tuple(tests.get(sc.id, ()))) for sc in skill.evals.scenarios]
        outputs = [output_from(o) for d in done for o in d.outputs]
        models = [Label(label) for label in labels]
        scores, gate = await settle(lines, models, outputs, config.gate, reps, False, _nothing)
        run = SkillRun(skill, lines, outputs, scores, gate, max((float(d.seconds) for d in done), default=0.0))
        for o in outputs:
            files.output(skill.name, o)
        print(files.skill(run, project.fingerprint(skill)), flush=True)
    outcomes = run_checks(project, warn)
    written_summary = files.summary(outcomes)
    print(f"Merged: {', '.join(shown(p.folder) for p in parts)}", flush=True)
    written = written_with(files.written(written_summary), write_junit(junit, files.summaries) if junit else None)
    return closing(project, files.results, outcomes, written)
