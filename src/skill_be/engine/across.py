"""One answer across agents: when a run has several models, a row per model (an agent CLI is one)
with how often the skill was loaded, both arms' pass rates, the model's effect over no skill with
its 95% interval, and the gate's verdict on that model alone; and which models must hold
(`gate.models`; by default every one, the reference's rule). Data only; reports/across.py words it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from skill_be.engine.gate import Gate, LineScore, ModelRow, Samples, decide
from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARMS, WITH_SKILL
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario

if TYPE_CHECKING:
    from skill_be.engine.trigger_scores import TriggerResult


def required_models(labels: Sequence[str], config: GateConfig) -> list[str]:
    """The models the verdict rests on: those gate.models names, in the run's order, or every one."""
    return [m for m in labels if m in config.models] if config.models else list(labels)


def rows(
    scores: Sequence[LineScore],
    scenarios: Sequence[Scenario],
    labels: Sequence[str],
    outputs: Sequence[Output],
    has_tests: bool,
    config: GateConfig,
    samples: Samples,
) -> tuple[ModelRow, ...]:
    """A row per model when there are several (none for one)."""
    if len(labels) < 2:
        return ()
    required = required_models(labels, config)
    out: list[ModelRow] = []
    for m in labels:
        mine = [x for x in scores if x.model == m and x.counted]
        errors = sum(len(o.errors) for o in outputs if o.arm in ARMS and o.model == m)
        alone = decide(
            [x for x in scores if x.model == m],
            scenarios,
            [m],
            errors,
            has_tests,
            config,
            {k: v for k, v in samples.items() if k[1] == m},
        )
        base = (sum(x.baseline_passed for x in mine), sum(x.baseline_total for x in mine))
        skill = (sum(x.with_skill_passed for x in mine), sum(x.with_skill_total for x in mine))
        effect = alone.effects.overall if alone.effects is not None and mine else None
        out.append(ModelRow(m, m in required, base, skill, effect, alone.ready, _agent_loads(outputs, m)))
    return tuple(out)


def _agent_loads(outputs: Sequence[Output], model: str) -> tuple[int, int] | None:
    runs = [o.meta["agent"] for o in outputs if o.model == model and o.arm == WITH_SKILL and "agent" in o.meta]
    records = [r for r in runs if isinstance(r, Mapping)]
    return (sum(1 for r in records if r.get("loaded")), len(records)) if records else None


def with_triggers(gate: Gate, result: TriggerResult) -> Gate:
    """The gate with the skill's trigger verdict: a blocking trigger check blocks the skill when its
    model must hold; each row gets its model's recall and its checks."""
    required = {r.model for r in gate.across if r.required}
    holds = all(c.model not in required for c in result.blocking) if gate.across else not result.blocking
    errors_block = result.block_on_errors and result.errors > 0
    ready = gate.ready and holds and not errors_block
    by_model = {t.model: t for t in result.models}
    across = tuple(
        replace(
            r,
            trigger_loaded=(by_model[r.model].recall.hits, by_model[r.model].recall.total)
            if r.model in by_model
            else None,
            ready=r.ready and all(c.model != r.model for c in result.blocking),
        )
        for r in gate.across
    )
    return replace(gate, ready=ready, trigger=result, across=across)
