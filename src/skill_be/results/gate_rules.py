"""Two gate rules that read more than one run's lines: `gate.minDelta` and `gate.previous`.

- `gate.minDelta: N` (skill-lens's `--min-delta`): the skill's **overall** effect over no skill (the
  mean over scenarios and models of each scenario's mean line delta) must reach N percentage points.
  Overall, not per scenario: a scenario the model already passes without the skill (100% in both
  arms) cannot show a gain, and a per-scenario minimum would block a skill for what the model
  already knows; harm in one scenario is the regression rule's job. Under `strict` the estimate
  must reach N; under `evidence` the 95% interval's lower bound must.
- `gate.previous: block | warn | off` (default `warn`): a critical scenario that got worse against
  the base branch's (or the previous version's) recorded scores blocks, or is a warning. Under
  `strict`, any critical line whose with-skill rate is lower than at the base; under `evidence`,
  a critical scenario whose mean change has its whole 95% interval below 0. Lines that are not
  comparable (the eval or its criteria changed) never count.

Pure functions on constructed tables, giving typed reasons (engine/gate.py `RuleReason`; reports/gate.py words them): the action applies them to the comparison it builds
(github/base_compare.py) and `run --against` to its previous arm's (wiring/versus.py). gate.minDelta
is decided by the engine's gate (engine/gate.py `short_of_min_delta`) on the run's
own overall interval; the action applies it again to the recorded counts only when the recorded
verdict has no minDelta reason yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from skill_be.engine.gate import RuleReason, WorseThanPrevious, rule_key, short_of_min_delta
from skill_be.engine.stats import Interval
from skill_be.results.compare import COMPARED, SkillChange, overall


class RuleOutcome(NamedTuple):
    blocks: tuple[RuleReason, ...] = ()  # reasons that block the verdict
    warnings: tuple[RuleReason, ...] = ()  # reasons shown without blocking


def worse_than_previous(change: SkillChange, rule: str, against: str = "the base") -> list[WorseThanPrevious]:
    """Critical scenarios that got worse against the base, as typed reasons (module doc)."""
    lines = [x for x in change.lines if x.critical and x.status == COMPARED and x.base is not None]
    if rule != "evidence":
        return [
            WorseThanPrevious(x.scenario, x.model, against, line=x.line, base=x.base, head=x.head)
            for x in lines
            if x.base is not None and _rate_f(x.head) < _rate_f(x.base)
        ]
    out = []
    units: dict[tuple[str, str], list[tuple[str, str, tuple[int, int], tuple[int, int]]]] = {}
    for x in lines:
        if x.base is not None:
            units.setdefault((x.scenario, x.model), []).append((x.scenario, x.model, x.base, x.head))
    for (scenario, model), items in units.items():
        iv = overall(items)
        if iv is not None and iv.high < 0:
            out.append(WorseThanPrevious(scenario, model, against, interval=iv))
    return out


def previous_rule(
    changes: Sequence[SkillChange], mode: str, rule: str, against: str = "the base"
) -> dict[str, RuleOutcome]:
    """`gate.previous` for each skill compared with the base: its reasons, blocking or warning."""
    if mode == "off":
        return {}
    out: dict[str, RuleOutcome] = {}
    for c in changes:
        reasons = tuple(worse_than_previous(c, rule, against))
        if reasons:
            out[c.name] = RuleOutcome(blocks=reasons) if mode == "block" else RuleOutcome(warnings=reasons)
    return out


def rule_outcomes(
    names: Sequence[str],
    changes: Mapping[str, SkillChange],
    effects: Mapping[str, Interval | None],
    gate: Any,
    against: str = "the base",
) -> dict[str, RuleOutcome]:
    """Both rules for each named skill, as the gate config sets them: `gate.previous` on its change
    against the base (`changes`), then `gate.minDelta` on its overall effect over no skill. `effects`
    holds the effect of each skill that was measured (None: measured, but no scored line); a skill
    not in it is left to `gate.previous` alone. The action (github/base_compare.py), `verify --base`
    and `run --against` (wiring/versus.py, against the previous version) all decide here."""
    rule = str(getattr(gate, "rule", "strict"))
    previous = previous_rule(list(changes.values()), str(getattr(gate, "previous", "warn")), rule, against)
    out: dict[str, RuleOutcome] = {}
    for name in names:
        o = previous.get(name, RuleOutcome())
        short = short_of_min_delta(effects[name], getattr(gate, "min_delta", None), rule) if name in effects else None
        o = o._replace(blocks=(*o.blocks, short)) if short else o
        if o.blocks or o.warnings:
            out[name] = o
    return out


def blocking_rules(outcomes: Mapping[str, RuleOutcome]) -> list[str]:
    """The config keys whose rule blocked a skill: `gate.previous`, `gate.minDelta`, or both."""
    keys = {rule_key(r) for o in outcomes.values() for r in o.blocks}
    return [key for key in ("gate.previous", "gate.minDelta") if key in keys]


def _rate_f(counts: tuple[int, int]) -> float:
    return counts[0] / counts[1] if counts[1] else 0.0
