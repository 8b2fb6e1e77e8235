"""Trigger evals as `run` and `triggers` drive them: each skill's plan (its queries, the skill and its
neighbours offered), the calls of one shard, the dry run's count and price, and the hook that runs a
skill's trigger calls beside its scenarios and folds the verdict into its gate."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from skill_be.adapters.choice import Chooser, Offered, choice_prompt
from skill_be.engine.across import with_triggers
from skill_be.engine.cache import trigger_key
from skill_be.engine.pricing import CacheLike, Caller, Price, Tokens, price_for, tokens_of
from skill_be.engine.runner import Engine, Settings, SkillRun
from skill_be.engine.trigger_scores import Observation, TriggerResult, decide
from skill_be.engine.triggers import Only, TriggerPlan, query_id, trigger_result
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill
from skill_be.project.trigger_plan import offered_skills
from skill_be.results.shards import Shard, assign, in_shard, parse_shard
from skill_be.wiring.assembly import Parts
from skill_be.wiring.common import warn

REPLY_TOKENS = 20  # output tokens of a trigger call: a tool call or a name


def plan_for(project: Project, skill: Skill, reps: int, description: str | None = None) -> TriggerPlan | None:
    """The skill's trigger plan, None when its eval file has no trigger queries."""
    t = skill.evals.triggers
    if t is None:
        return None
    offered = tuple(Offered(o.name, o.description) for o in offered_skills(project, skill, description))
    return TriggerPlan(offered[0].name, offered, t.queries, reps)


def shard_of(project: Project, labels: Sequence[str], reps: int, shard: Shard) -> Only:
    """This shard's trigger calls: every call is a unit of one, dealt as results/shards.py deals units."""
    units = [
        ((s.name, "trigger:" + query_id(q), label, rep), 1)
        for s in project.skills
        for q in (s.evals.triggers.queries if s.evals.triggers else ())
        for label in labels
        for rep in range(1, reps + 1)
    ]
    return in_shard(assign(units, shard.of), shard)


def dry_run_lines(
    project: Project,
    reps: int,
    callers: Sequence[Caller],
    cache: CacheLike | None,
    prices: Mapping[str, Price],
    ids: Mapping[str, str],
    only: Only | None = None,
) -> list[str]:
    """`run --dry-run`'s trigger lines: calls per skill, how many the cache holds, tokens and cost."""
    lines: list[str] = []
    tokens: dict[str, Tokens] = {}
    total = cached = 0
    for skill in project.skills:
        plan = plan_for(project, skill, reps)
        if plan is None:
            continue
        n = held = 0
        for i, label, rep in plan.calls([c.label for c in callers], only, skill.name):
            caller = next(c for c in callers if c.label == label)
            prompt = choice_prompt(plan.queries[i].prompt, plan.offered)
            n += 1
            if cache is not None and cache.peek(trigger_key(caller.identity, prompt, rep)) is not None:
                held += 1
            else:
                tokens.setdefault(label, Tokens()).add(tokens_of(len(prompt)), REPLY_TOKENS)
        lines.append(f"  {skill.name}: {n} trigger calls ({len(plan.offered)} skills offered); the cache holds {held}")
        total, cached = total + n, cached + held
    if not lines:
        return []
    t_in = sum(t.input for t in tokens.values())
    t_out = sum(t.output for t in tokens.values())
    costs = [t.cost(price_for(prices, label, ids.get(label, label))) for label, t in tokens.items()]
    price = (
        f"; estimated cost ${sum(c for c in costs if c is not None):,.4f}"
        if prices and all(c is not None for c in costs)
        else ""
    )
    return [
        "Trigger evals (one short call per query, model and rep):",
        *lines,
        f"  Trigger total: {total} calls, {cached} from the cache, {total - cached} to make; "
        f"about {t_in:,} input and {t_out:,} output tokens{price}",
    ]


def with_result(run: SkillRun, result: TriggerResult) -> SkillRun:
    """The skill's run with its trigger verdict in its gate: a blocking trigger key blocks the skill."""
    run.gate = with_triggers(run.gate, result)  # engine/across.py: the required models' checks block
    return run


class TriggerRuns:
    """`run`'s hook: a skill's trigger calls beside its scenarios, under the engine's one limit."""

    def __init__(
        self,
        project: Project,
        reps: int,
        choosers: Mapping[str, Chooser] | None = None,
        only: Only | None = None,
    ) -> None:
        self.plans = {s.name: plan_for(project, s, reps) for s in project.skills}
        self.choosers = choosers or {}
        self.only = only

    async def run_skill(self, engine: Engine, skill: Skill, index: int) -> SkillRun:
        plan = self.plans.get(skill.name)
        if plan is None:
            return await engine.run_skill(skill, index)
        run, result = await asyncio.gather(
            engine.run_skill(skill, index),
            trigger_result(engine, plan, index, self.choosers, self.only, skill.name),
        )
        return with_result(run, result)


def skill_files_of(project: Project, description: Mapping[str, str] | None = None) -> dict[str, dict[str, bytes]]:
    """Every offered skill's files by its name, for agent CLIs (read only when one is under test)."""
    from skill_be.agents.skills import read_skill

    out: dict[str, dict[str, bytes]] = {}
    for skill in project.skills:
        for o in offered_skills(project, skill):
            if o.name not in out or o.folder == skill.dir:
                new = (description or {}).get(skill.name) if o.folder == skill.dir else None
                out[o.name] = dict(read_skill(o.folder, o.name, o.description, new).files)
    return out


def choosers_for(parts: Parts, description: Mapping[str, str] | None = None) -> dict[str, Chooser]:
    """The agent CLIs' choosers (agents/triggers.py), each running its CLI on this machine through the
    process box; none when no model is an agent CLI."""
    from skill_be.agents.boxes.process import ProcessBox
    from skill_be.agents.drivers import DRIVERS
    from skill_be.agents.triggers import agent_choosers

    pairs = zip(parts.models, parts.project.config.models, strict=True)
    models = [(m.label, m.adapter) for m, e in pairs if e.adapter in DRIVERS]
    if not models:
        return {}
    files = skill_files_of(parts.project, description)
    return agent_choosers(models, parts.project.config.trigger_turns, files, ProcessBox(), warn=warn)


def trigger_runs(project: Project, parts: Parts, settings: Settings, shard: str | None) -> TriggerRuns | None:
    """`run`'s trigger hook; None when no selected skill has trigger queries."""
    if not any(s.evals.triggers for s in project.skills):
        return None
    only = None
    if shard is not None:
        only = shard_of(project, [m.label for m in parts.models], settings.reps, parse_shard(shard))
    return TriggerRuns(project, settings.reps, choosers_for(parts), only)


def merged(
    project: Project, run: SkillRun, summaries: Sequence[Mapping[str, object]], labels: Sequence[str], reps: int
) -> SkillRun:
    """`merge`: the skill's trigger calls from every shard's summary.json, scored and gated as one run."""
    plan = plan_for(project, run.skill, reps)
    if plan is None:
        return run
    by_id = {query_id(q): q for q in plan.queries}
    observations: list[Observation] = []
    for summary in summaries:
        skills = summary.get("skills")
        doc = skills.get(run.skill.name) if isinstance(skills, dict) else None
        triggers = doc.get("triggers") if isinstance(doc, dict) else None
        for c in (triggers or {}).get("calls") or ():
            q = by_id.get(str(c.get("id")))
            if q is None:
                raise ConfigError(
                    f"{run.skill.name}: a shard's trigger call {c.get('id')!r} is not a query of "
                    f"{shown(run.skill.eval_path)} now; run the shards again"
                )
            loaded, error = c.get("loaded"), c.get("error")
            observations.append(
                Observation(
                    q,
                    str(c["model"]),
                    int(c["rep"]),
                    loaded if isinstance(loaded, str) else None,
                    str(error) if error else None,
                    float(c.get("seconds") or 0),
                )
            )
    order = {query_id(q): i for i, q in enumerate(plan.queries)}
    observations.sort(key=lambda o: (order[query_id(o.query)], labels.index(o.model), o.rep))
    offered = [o.name for o in plan.offered]
    result = decide(plan.skill, offered, plan.queries, labels, observations, reps, project.config.gate)
    return with_result(run, result)


class StoredTriggers(TriggerRuns):
    """`regrade`'s hook: a skill's trigger calls are not made again; the earlier run's (from its
    summary.json) are scored and gated with today's gate settings. A skill whose trigger queries
    changed since then is left without trigger evals, with a warning."""

    def __init__(self, project: Project, earlier: Mapping[str, object], labels: Sequence[str], reps: int) -> None:
        super().__init__(project, reps)
        self.project = project
        self.earlier = earlier
        self.labels = list(labels)
        self.reps = reps
        skills = earlier.get("skills")
        for name, plan in list(self.plans.items()):
            doc = skills.get(name) if isinstance(skills, dict) else None
            calls = ((doc or {}).get("triggers") or {}).get("calls") if isinstance(doc, dict) else None
            asked = {(str(c.get("id")), c.get("query")) for c in calls or ()}
            if plan is not None and asked != {(query_id(q), q.prompt) for q in plan.queries}:
                warn(
                    f"regrade: {name}: its trigger queries changed since that run; run skill-be run for its trigger evals"
                )
                self.plans[name] = None

    async def run_skill(self, engine: Engine, skill: Skill, index: int) -> SkillRun:
        run = await engine.run_skill(skill, index)
        if self.plans.get(skill.name) is None:
            return run
        return merged(self.project, run, [self.earlier], self.labels, self.reps)
