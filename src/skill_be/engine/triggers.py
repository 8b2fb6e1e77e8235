"""Trigger evals, driven: every query × model × rep of one skill, each a call through `Engine.call`
(the shared limit, the per-call timeout, the response cache, failures as data), then the scores
and the gate (engine/trigger_scores.py).

A call offers the skill and its neighbours. How the choice is observed is the adapter's: a
`Chooser` (the HTTP adapters: skills as tools), a chooser the command layer supplies for a model
(the agent CLIs, through agent mode's drivers), or the documented prompt block (adapters/choice.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from skill_be.adapters.base import Adapter, Answer, CallContext
from skill_be.adapters.choice import Chooser, Offered, choice_prompt, choose_by_prompt
from skill_be.engine.calls import GENERATE, CallTag, Model
from skill_be.engine.runner import Engine
from skill_be.engine.trigger_scores import Observation, TriggerResult, decide
from skill_be.project.triggers import TriggerQuery

KIND = "trigger"  # the CallTag kind of a trigger call (the cache keys it apart from generations)

# (skill, query id, model label, rep) -> whether this run makes the call (run --shard)
Only = Callable[[str, str, str, int], bool]


def query_id(q: TriggerQuery) -> str:
    """`shouldNot[2]`: a query's stable name, from its place in the eval file."""
    return f"{q.at[1]}[{q.at[2]}]"


@dataclass(frozen=True)
class TriggerPlan:
    skill: str  # the name offered (front matter name, else the folder)
    offered: tuple[Offered, ...]  # the skill and its neighbours, in the order offered
    queries: tuple[TriggerQuery, ...]
    reps: int

    def calls(self, models: Sequence[str], only: Only | None = None, folder: str = "") -> list[tuple[int, str, int]]:
        """(query index, model label, rep) of every call this run makes."""
        return [
            (i, m, rep)
            for i, q in enumerate(self.queries)
            for m in models
            for rep in range(1, self.reps + 1)
            if only is None or only(folder or self.skill, "trigger:" + query_id(q), m, rep)
        ]


@dataclass
class ChoiceCall:
    """A trigger call dressed as an adapter, so it goes through Engine.call like every other call.
    `inner` is the model's own adapter: the response cache keys the call by it."""

    inner: Adapter
    query: str
    offered: Sequence[Offered]
    chooser: Chooser | None = None
    label: str = field(default="")

    async def preflight(self) -> None:
        await self.inner.preflight()

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        chooser = self.chooser or (self.inner if isinstance(self.inner, Chooser) else None)
        if chooser is not None:
            choice = await chooser.choose(self.query, self.offered, ctx)
        else:
            choice = await choose_by_prompt(self.inner, self.query, self.offered, ctx)
        return Answer(
            text=choice.name or "none", usage=choice.usage, meta={"chosen": choice.name, "reply": choice.reply}
        )

    def describe(self) -> Mapping[str, object]:
        return self.inner.describe()


async def run_triggers(
    engine: Engine,
    plan: TriggerPlan,
    skill_index: int,
    choosers: Mapping[str, Chooser] | None = None,
    only: Only | None = None,
    folder: str = "",
) -> list[Observation]:
    """Every call of the plan on every model of the engine; an observation per call, in plan order."""
    by_label = {m.label: m for m in engine.models}
    calls = plan.calls(list(by_label), only, folder)

    async def one(i: int, label: str, rep: int) -> Observation:
        q = plan.queries[i]
        model = by_label[label]
        wrapped = ChoiceCall(model.adapter, q.prompt, plan.offered, (choosers or {}).get(label), label)
        prompt = choice_prompt(q.prompt, plan.offered)  # every offered description is in the cache key
        tag = CallTag(KIND, "trigger:" + query_id(q), rep, "", model=label, skill=folder)
        answer, error, seconds = await engine.call(
            Model(label, wrapped), prompt, engine.priority(skill_index, GENERATE), tag
        )
        if answer is None:
            return Observation(q, label, rep, None, error, seconds)
        chosen = answer.meta.get("chosen")
        return Observation(q, label, rep, chosen if isinstance(chosen, str) else None, None, seconds, answer.usage)

    return list(await asyncio.gather(*(one(i, m, rep) for i, m, rep in calls)))


async def trigger_result(
    engine: Engine,
    plan: TriggerPlan,
    skill_index: int,
    choosers: Mapping[str, Chooser] | None = None,
    only: Only | None = None,
    folder: str = "",
) -> TriggerResult:
    """The calls, then the scores and the gate's decision on them."""
    observations = await run_triggers(engine, plan, skill_index, choosers, only, folder)
    labels = [m.label for m in engine.models]
    offered = [o.name for o in plan.offered]
    return decide(plan.skill, offered, plan.queries, labels, observations, plan.reps, engine.settings.gate)
