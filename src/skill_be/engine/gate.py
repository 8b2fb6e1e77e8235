"""Scores per line, arm and model, and the release gate's decision: data only (reports/gate.py words it).

Two rules. `strict` (the reference's): zero, critical regression and errors, each as the reference
defines it; a regression block whose interval contains zero carries a note. `evidence`: a critical
scenario (or one of its lines) blocks only when its delta is below zero at a one-sided level
corrected for the tests made; what cannot rule out a harm of `gate.margin` is inconclusive.
At the end, the rules on a comparison with another version (`gate.previous`, `rule_outcomes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from skill_be.engine import stats
from skill_be.engine.changes import COMPARED, SkillChange, overall
from skill_be.engine.observations import Output
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.engine.stats import ArmSample, Interval
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario

if TYPE_CHECKING:
    from skill_be.engine.trigger_scores import TriggerResult

TEST_PREFIX = "[test] "  # how a code test is named among a scenario's lines (reports.strings has the same)
ALPHA = 0.05  # evidence: the one-sided error level of a false block, shared by every test and look
SCENARIO_SHARE = 0.8  # of ALPHA for the critical scenarios' tests; the rest for their lines' tests
FIRST_LOOK_SHARE = 0.25  # of ALPHA for the first look when --top-up may look again (few reps: rarely decisive)
ZERO_THRESHOLD = 0.20  # evidence: zero blocks when the with-skill rate is surely below this on every model
CONFIDENCE = 0.95  # every displayed interval
Z95 = stats.z_two_sided(CONFIDENCE)
# "Reps that would decide it": where the interval would clear its boundary 80% of the time, not half.
Z_DECIDE = Z95 + stats.z_one_sided(0.2)


def percent(yes: int, total: int) -> int:
    """The share as a whole percent, halves rounded up (2 of 3 is 67)."""
    return (200 * yes + total) // (2 * total) if total else 0


@dataclass(frozen=True)
class LineScore:
    scenario: str
    line: str  # the criterion's text, or "[test] <name>"
    kind: str  # criterion | test
    model: str
    baseline: int
    with_skill: int
    # The counts behind the two percents: reps that passed and reps counted, per arm.
    baseline_passed: int = 0
    baseline_total: int = 0
    with_skill_passed: int = 0
    with_skill_total: int = 0

    @property
    def delta(self) -> int:
        return self.with_skill - self.baseline

    @property
    def counted(self) -> bool:
        return self.baseline_total > 0 and self.with_skill_total > 0

    def interval(self, z: float = Z95) -> Interval:
        """The delta as a fraction with Newcombe's hybrid score interval (95% by default)."""
        return stats.newcombe(
            self.baseline_passed, self.baseline_total, self.with_skill_passed, self.with_skill_total, z
        )

    def variance(self) -> float:
        return stats.line_variance(
            self.baseline_passed, self.baseline_total, self.with_skill_passed, self.with_skill_total
        )


@dataclass(frozen=True)
class ScenarioLines:
    scenario: Scenario
    tests: tuple[str, ...]

    @property
    def labels(self) -> list[tuple[str, str]]:
        return [(c, "criterion") for c in self.scenario.scored] + [(TEST_PREFIX + t, "test") for t in self.tests]


def score_lines(lines: ScenarioLines, model: str, outputs: Sequence[Output]) -> list[LineScore]:
    """Each line's share of reps that passed, per arm, for one scenario on one model."""
    n = len(lines.scenario.scored)
    by_arm = {arm: [o.passes(n, lines.tests) for o in outputs if o.arm == arm] for arm in (BASELINE, WITH_SKILL)}
    scores: list[LineScore] = []
    for i, (label, kind) in enumerate(lines.labels):
        base = by_arm[BASELINE]
        skill = by_arm[WITH_SKILL]
        base_passed = sum(p[i] for p in base)
        skill_passed = sum(p[i] for p in skill)
        scores.append(
            LineScore(
                scenario=lines.scenario.id,
                line=label,
                kind=kind,
                model=model,
                baseline=percent(base_passed, len(base)),
                with_skill=percent(skill_passed, len(skill)),
                baseline_passed=base_passed,
                baseline_total=len(base),
                with_skill_passed=skill_passed,
                with_skill_total=len(skill),
            )
        )
    return scores


Samples = Mapping[tuple[str, str], tuple[ArmSample, ArmSample]]  # (scenario, model) -> (baseline, with skill)


def arm_samples(
    lines: Sequence[ScenarioLines], models: Sequence[str], outputs: Sequence[Output]
) -> dict[tuple[str, str], tuple[ArmSample, ArmSample]]:
    """Each scenario's answers on each model as shares of lines passed, per arm."""
    out: dict[tuple[str, str], tuple[ArmSample, ArmSample]] = {}
    for sl in lines:
        n = len(sl.scenario.scored)
        for m in models:
            mine = [o for o in outputs if o.scenario == sl.scenario.id and o.model == m]
            base, skill = (
                ArmSample.of([o.passes(n, sl.tests) for o in mine if o.arm == arm]) for arm in (BASELINE, WITH_SKILL)
            )
            if base.lines:
                out[(sl.scenario.id, m)] = (base, skill)
    return out


@dataclass(frozen=True)
class ScenarioEffect:
    """A scenario's pooled delta on one model, with its 95% interval."""

    scenario: str
    model: str
    critical: bool
    interval: Interval
    answers: tuple[int, int]  # (baseline, with skill)
    reps_to_decide: int  # reps per arm at which the interval would exclude zero (or the margin)


@dataclass(frozen=True)
class Effects:
    """Every displayed interval of a skill's run."""

    lines: Mapping[tuple[str, str, str], Interval]  # (scenario, model, line) -> the line's delta
    scenarios: tuple[ScenarioEffect, ...]
    overall: Interval  # across scenarios (mean over models), two-level bootstrap
    seed: int
    low_sample: bool  # some arm has fewer than stats.LOW_SAMPLE_ANSWERS answers
    one_scenario: bool = False  # the overall effect is that scenario's own interval, not a bootstrap


@dataclass(frozen=True)
class Inconclusive:
    """A delta whose interval reaches both below -margin and above zero, and the reps that would decide it."""

    scenario: str
    model: str
    line: str | None  # None: the scenario's pooled delta
    interval: Interval
    reps: int  # reps per arm
    have: int  # reps per arm now


@dataclass(frozen=True)
class NoiseNote:
    """Strict rule: a regression block whose interval contains zero, and the reps that would decide it."""

    score: LineScore
    interval: Interval
    reps: int


@dataclass(frozen=True)
class EvidenceBlock:
    """Evidence rule: a critical scenario (line None) or line surely worse with the skill."""

    scenario: str
    model: str
    line: str | None
    interval: Interval  # at the one-sided corrected level: its high is the bound that is below zero
    look: int
    score: LineScore | None = None  # a line's scores


@dataclass(frozen=True)
class ZeroSeen:
    """A line at 0% with the skill on every model that does not block: the zero rule is off (`reps`
    None), or (evidence) `have` reps per arm cannot show it below the threshold and `reps` would."""

    scenario: str
    line: str
    have: int
    reps: int | None = None


@dataclass(frozen=True)
class TopUp:
    scenario: str
    model: str
    reps_from: int
    reps_to: int


@dataclass(frozen=True)
class Levels:
    """What decided: the rule and, under evidence, its error levels."""

    rule: str
    alpha: float = ALPHA  # family-wise one-sided level of a false block
    looks: int = 1  # 2 with --top-up: the level is split between the looks
    look: int = 1  # which look this is
    scenario_tests: int = 0  # critical scenarios × models
    line_tests: int = 0  # critical lines × models
    zero_threshold: float = ZERO_THRESHOLD
    margin: float = 30.0
    inconclusive: str = "pass"  # gate.inconclusive

    @property
    def look_share(self) -> float:
        if self.looks == 1:
            return 1.0
        return FIRST_LOOK_SHARE if self.look == 1 else 1.0 - FIRST_LOOK_SHARE

    @property
    def scenario_level(self) -> float:
        """Bonferroni: each critical scenario × model test's one-sided level."""
        return self.alpha * SCENARIO_SHARE * self.look_share / max(self.scenario_tests, 1)

    @property
    def line_level(self) -> float:
        return self.alpha * (1 - SCENARIO_SHARE) * self.look_share / max(self.line_tests, 1)

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {"rule": self.rule}
        if self.rule == "evidence":
            doc.update(
                alpha=self.alpha,
                looks=self.looks,
                look=self.look,
                scenarioLevel=round(self.scenario_level, 6),
                lineLevel=round(self.line_level, 6),
                zeroThreshold=self.zero_threshold,
                margin=self.margin,
                onInconclusive=self.inconclusive,
            )
        return doc


@dataclass(frozen=True)
class ModelRow:
    """One model's line of the table across models (engine/across.py)."""

    model: str
    required: bool  # gate.models names it: the skill must hold on this model alone
    baseline: tuple[int, int]  # (passed, counted) over every scored line of every scenario on this model
    with_skill: tuple[int, int]
    effect: Interval | None  # the model's effect over no skill (mean over scenarios), 95%; None: nothing scored
    ready: bool  # the gate decided on this model alone (its trigger checks included)
    agent_loaded: tuple[int, int] | None = None  # agent scenarios: with-skill runs that loaded the skill, runs
    trigger_loaded: tuple[int, int] | None = None  # trigger evals: should-trigger calls that loaded it, calls


@dataclass(frozen=True)
class Gate:
    ready: bool
    zero: tuple[tuple[str, str], ...]  # (scenario, line) at 0% with the skill on every model
    regressions: tuple[LineScore, ...]  # strict: critical lines that scored lower with the skill
    errors: int
    error_blocks: bool
    has_tests: bool
    levels: Levels = field(default_factory=lambda: Levels("strict"))
    effects: Effects | None = None
    notes: tuple[NoiseNote, ...] = ()  # strict: regression blocks within the noise
    blocks: tuple[EvidenceBlock, ...] = ()  # evidence: scenarios and lines surely worse
    inconclusive: tuple[Inconclusive, ...] = ()
    inconclusive_blocks: bool = False
    top_up: tuple[TopUp, ...] = ()
    trigger: TriggerResult | None = None  # trigger evals (engine/trigger_scores.py); `ready` includes its verdict
    rules: Rules = field(default_factory=lambda: Rules())  # gate.minDelta, gate.previous; `ready` includes them
    # Scenarios run for review with nothing that grades them (`graded: false`, an evals.json case without
    # assertions), and whether every scenario is one: then the skill is not READY, nothing was measured.
    ungraded: tuple[str, ...] = ()
    nothing_graded: bool = False
    zero_seen: tuple[ZeroSeen, ...] = ()  # lines at 0% with the skill on every model that do not block
    across: tuple[ModelRow, ...] = ()  # several models: a row each (engine/across.py); `ready` rests on the required


@dataclass(frozen=True)
class ShortOfMinDelta:
    """gate.minDelta: the skill's overall effect over no skill falls short of `min_delta` points (its
    estimate under `strict`, its 95% lower bound under `evidence`); `effect` None: no scored line."""

    min_delta: float
    effect: Interval | None
    rule: str


@dataclass(frozen=True)
class WorseThanPrevious:
    """gate.previous: a critical line (strict: its with-skill counts at `against` and now) or a critical
    scenario (evidence, `line` None: its mean change's 95% interval, below 0) worse than at `against`."""

    scenario: str
    model: str
    against: str  # "the base", or the version compared with (run --against)
    line: str | None = None
    base: tuple[int, int] | None = None  # (passed, total) at `against`
    head: tuple[int, int] | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class NotHeldOn:
    """gate.models: a model the skill must hold on, where the gate on that model alone blocks."""

    model: str


@dataclass(frozen=True)
class BaselinePreferred:
    """compare.pairwiseGate: in the blind A/B the judge prefers the baseline's answers; the whole 95%
    interval of the skill's preference rate (`low` to `high`, fractions) is below one half."""

    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class FakeRun:
    """adapter fake (run --fake): the answers and gradings are canned, so nothing measures the skill."""


RuleReason = ShortOfMinDelta | WorseThanPrevious | NotHeldOn | BaselinePreferred | FakeRun


def rule_key(reason: RuleReason) -> str:
    """The config key whose rule gave the reason."""
    if isinstance(reason, NotHeldOn):
        return "gate.models"
    if isinstance(reason, BaselinePreferred):
        return "compare.pairwiseGate"
    if isinstance(reason, FakeRun):
        return "adapter fake"
    return "gate.minDelta" if isinstance(reason, ShortOfMinDelta) else "gate.previous"


@dataclass(frozen=True)
class Rules:
    """The gate rules beyond the two arms' lines: gate.minDelta and gate.previous (on a comparison,
    `rule_outcomes` below). Blocks turn the verdict NOT READY; warnings only show."""

    blocks: tuple[RuleReason, ...] = ()
    warnings: tuple[RuleReason, ...] = ()


def with_rules(gate: Gate, blocks: Sequence[RuleReason] = (), warnings: Sequence[RuleReason] = ()) -> Gate:
    """The gate with more rule reasons: any block makes it NOT READY."""
    if not blocks and not warnings:
        return gate
    rules = Rules((*gate.rules.blocks, *blocks), (*gate.rules.warnings, *warnings))
    return replace(gate, ready=gate.ready and not blocks, rules=rules)


def signed_pp(x: float) -> str:
    """A fraction as signed whole points: +12, -3."""
    v = round(x * 100)
    return f"+{v}" if v >= 0 else str(v)


def short_of_min_delta(effect: Interval | None, min_delta: float | None, rule: str) -> ShortOfMinDelta | None:
    """gate.minDelta: the block when the skill's overall effect over no skill falls short of
    `min_delta` points (its estimate under `strict`, its 95% lower bound under `evidence`), else None."""
    if min_delta is None:
        return None
    if effect is not None and (effect.low if rule == "evidence" else effect.estimate) * 100 >= min_delta:
        return None
    return ShortOfMinDelta(min_delta, effect, rule)


def effects(
    scores: Sequence[LineScore],
    scenarios: Sequence[Scenario],
    models: Sequence[str],
    samples: Samples,
    margin: float,
    resamples: int = 2000,
) -> Effects:
    """The 95% intervals of every line, scenario and the whole skill; deterministic for given data."""
    critical = {sc.id for sc in scenarios if sc.critical}
    lines = {(x.scenario, x.model, x.line): x.interval() for x in scores if x.counted}
    per_scenario: list[ScenarioEffect] = []
    for sc in scenarios:
        for m in models:
            if (sc.id, m) not in samples:
                continue
            base, skill = samples[(sc.id, m)]
            iv = stats.pooled_delta(base, skill, CONFIDENCE)
            half = _half_width_to_decide(iv.estimate, margin / 100, sc.id in critical)
            reps = stats.pooled_reps_to_decide(base, skill, half, Z_DECIDE)
            per_scenario.append(ScenarioEffect(sc.id, m, sc.id in critical, iv, (base.n, skill.n), reps))
    units = [
        [(samples[(sc.id, m)][0].shares, samples[(sc.id, m)][1].shares) for m in models if (sc.id, m) in samples]
        for sc in scenarios
    ]
    seed = stats.content_seed([sc.id for sc in scenarios], list(models), [[list(map(list, u)) for u in units]])
    measured = [u for u in units if u]
    overall = stats.bootstrap_effect(measured, seed, resamples, CONFIDENCE)
    if len(measured) == 1 and per_scenario:  # a bootstrap over one scenario is no interval
        overall = _mean_interval([e.interval for e in per_scenario])
    low = any(stats.low_sample(min(b.n, s.n)) for b, s in samples.values())
    return Effects(lines, tuple(per_scenario), overall, seed, low, one_scenario=len(measured) == 1)


def _mean_interval(ivs: Sequence[Interval]) -> Interval:
    """One scenario's overall effect: its pooled interval (the mean of its models' when several)."""
    n = len(ivs)
    return Interval(sum(i.estimate for i in ivs) / n, sum(i.low for i in ivs) / n, sum(i.high for i in ivs) / n)


def _half_width_to_decide(d: float, margin: float, critical: bool) -> float:
    """The half-width at which an interval around `d` is decided: below zero, or above -margin
    (critical, under evidence) / clear of zero (anything else)."""
    return max(-d, d + margin) if critical else abs(d)


def decide(
    scores: Sequence[LineScore],
    scenarios: Sequence[Scenario],
    models: Sequence[str],
    errors: int,
    has_tests: bool,
    config: GateConfig,
    samples: Samples | None = None,
    looks: int = 1,
    look: int = 1,
    earlier: Gate | None = None,
    resamples: int = 2000,
) -> Gate:
    """READY unless an enabled rule holds. Under `strict`: zero (0% with the skill on every model),
    regression (a critical line lower with the skill, on any model), errors (any). Under `evidence`,
    see the module doc. `looks` is 2 when --top-up may look again; `earlier` is the first look's gate,
    whose blocks stand."""
    fx = effects(scores, scenarios, models, samples, config.margin, resamples) if samples is not None else None
    if config.rule == "evidence":
        gate = _evidence(scores, scenarios, models, errors, has_tests, config, fx, samples or {}, looks, look, earlier)
    else:
        gate = _strict(scores, scenarios, models, errors, has_tests, config, fx)
    short = short_of_min_delta(fx.overall if fx is not None else None, config.min_delta, config.rule)
    gate = with_rules(gate, [short] if short else [])
    gate = replace(gate, zero_seen=_zero_seen(scores, models, gate, config.block_on_zero))
    ungraded = tuple(sc.id for sc in scenarios if not sc.graded)
    if not ungraded:
        return gate
    none = len(ungraded) == len(scenarios)
    return replace(gate, ungraded=ungraded, nothing_graded=none, ready=gate.ready and not none)


def _strict(
    scores: Sequence[LineScore],
    scenarios: Sequence[Scenario],
    models: Sequence[str],
    errors: int,
    has_tests: bool,
    config: GateConfig,
    fx: Effects | None,
) -> Gate:
    error_blocks = config.block_on_errors and errors > 0
    critical = {sc.id for sc in scenarios if sc.critical}
    zero = _zero(scores, models, config, lambda x: x.with_skill == 0)
    regressions = tuple(
        x for x in scores if config.regression_on_critical and x.scenario in critical and x.with_skill < x.baseline
    )
    notes = []
    for r in regressions:
        if not r.counted:
            continue
        iv = r.interval()
        if iv.contains(0.0):
            notes.append(NoiseNote(r, iv, stats.reps_to_decide(r.variance(), -iv.estimate, Z_DECIDE)))
    ready = not zero and not regressions and not error_blocks
    return Gate(ready, zero, regressions, errors, config.block_on_errors, has_tests, Levels("strict"), fx, tuple(notes))


def _zero(
    scores: Sequence[LineScore], models: Sequence[str], config: GateConfig, hits: Callable[[LineScore], bool]
) -> tuple[tuple[str, str], ...]:
    zero: list[tuple[str, str]] = []
    if config.block_on_zero:
        for key in dict.fromkeys((x.scenario, x.line) for x in scores):
            per_model = [x for x in scores if (x.scenario, x.line) == key]
            if len(per_model) == len(models) and all(hits(x) for x in per_model):
                zero.append(key)
    return tuple(zero)


def _zero_seen(scores: Sequence[LineScore], models: Sequence[str], gate: Gate, rule_on: bool) -> tuple[ZeroSeen, ...]:
    """Lines at 0% with the skill on every model (counted) that the zero rule did not block; `reps`
    only when the rule is on (evidence: the reps that would show it below the threshold)."""
    out: list[ZeroSeen] = []
    for key in dict.fromkeys((x.scenario, x.line) for x in scores):
        per_model = [x for x in scores if (x.scenario, x.line) == key]
        if key in gate.zero or len(per_model) != len(models):
            continue
        if all(x.with_skill_total > 0 and x.with_skill_passed == 0 for x in per_model):
            have = min(x.with_skill_total for x in per_model)
            evidence = rule_on and gate.levels.rule == "evidence"
            reps = _reps_to_show_zero(gate.levels.zero_threshold) if evidence else None
            out.append(ZeroSeen(key[0], key[1], have, reps))
    return tuple(out)


def _reps_to_show_zero(threshold: float) -> int:
    """The fewest reps at 0 passes whose one-sided 95% upper bound is below `threshold`."""
    z = stats.z_one_sided(0.05)
    n = 1
    while stats.wilson(0, n, z)[1] >= threshold and n < stats.REPS_CAP:
        n += 1
    return n


def _scenario_evidence(
    fx: Effects,
    critical: set[str],
    samples: Samples,
    levels: Levels,
    margin: float,
    blocks: list[EvidenceBlock],
    seen: set[tuple[str, str, str | None]],
    unclear: list[Inconclusive],
) -> None:
    """Each critical scenario's pooled delta on each model: a block when its bound is below 0, else
    inconclusive when its interval reaches past -margin and above 0. Adds to `blocks` and `unclear`."""
    for e in fx.scenarios:
        if not e.critical or e.scenario not in critical:
            continue
        if (e.scenario, e.model, None) in seen:  # blocked at the first look: it stands
            continue
        base, skill = samples[(e.scenario, e.model)]
        bound = stats.pooled_delta(base, skill, 1 - 2 * levels.scenario_level)
        if bound.high < 0:
            blocks.append(EvidenceBlock(e.scenario, e.model, None, bound, levels.look))
            seen.add((e.scenario, e.model, None))
            continue
        iv = e.interval
        if iv.low < -margin and iv.high > 0:
            unclear.append(Inconclusive(e.scenario, e.model, None, iv, e.reps_to_decide, min(e.answers)))


def _line_evidence(
    crit_lines: Sequence[LineScore],
    levels: Levels,
    margin: float,
    blocks: list[EvidenceBlock],
    seen: set[tuple[str, str, str | None]],
    unclear: list[Inconclusive],
) -> None:
    """Each critical line on each model, as `_scenario_evidence` (a line of a blocked scenario is not
    also inconclusive)."""
    z_line = stats.z_one_sided(levels.line_level)
    blocked_scenarios = {(b.scenario, b.model) for b in blocks if b.line is None}
    for x in crit_lines:
        if (x.scenario, x.model, x.line) in seen:
            continue
        bound = x.interval(z_line)
        if bound.high < 0:
            blocks.append(EvidenceBlock(x.scenario, x.model, x.line, bound, levels.look, x))
            continue
        iv = x.interval()
        if (x.scenario, x.model) not in blocked_scenarios and iv.low < -margin and iv.high > 0:
            half = _half_width_to_decide(iv.estimate, margin, True)
            reps = stats.reps_to_decide(x.variance(), half, Z_DECIDE)
            have = min(x.baseline_total, x.with_skill_total)
            unclear.append(Inconclusive(x.scenario, x.model, x.line, iv, max(reps, have + 1), have))


def _evidence(
    scores: Sequence[LineScore],
    scenarios: Sequence[Scenario],
    models: Sequence[str],
    errors: int,
    has_tests: bool,
    config: GateConfig,
    fx: Effects | None,
    samples: Samples,
    looks: int,
    look: int,
    earlier: Gate | None,
) -> Gate:
    critical = {sc.id for sc in scenarios if sc.critical} if config.regression_on_critical else set()
    crit_lines = [x for x in scores if x.scenario in critical and x.counted]
    levels = Levels(
        "evidence",
        looks=looks,
        look=look,
        scenario_tests=len(critical) * len(models),
        line_tests=len(crit_lines),
        margin=config.margin,
        inconclusive=config.inconclusive,
    )
    z_upper = stats.z_one_sided(0.05)
    zero = _zero(
        scores,
        models,
        config,
        lambda x: x.counted and stats.wilson(x.with_skill_passed, x.with_skill_total, z_upper)[1] < ZERO_THRESHOLD,
    )
    margin = config.margin / 100
    blocks: list[EvidenceBlock] = list(earlier.blocks) if earlier else []
    seen = {(b.scenario, b.model, b.line) for b in blocks}
    unclear: list[Inconclusive] = []
    if fx is not None:
        _scenario_evidence(fx, critical, samples, levels, margin, blocks, seen, unclear)
    _line_evidence(crit_lines, levels, margin, blocks, seen, unclear)
    error_blocks = config.block_on_errors and errors > 0
    inconclusive_blocks = config.inconclusive == "block" and bool(unclear)
    ready = not zero and not blocks and not error_blocks and not inconclusive_blocks
    return Gate(
        ready=ready,
        zero=zero,
        regressions=(),
        errors=errors,
        error_blocks=config.block_on_errors,
        has_tests=has_tests,
        levels=levels,
        effects=fx,
        blocks=tuple(blocks),
        inconclusive=tuple(unclear),
        inconclusive_blocks=inconclusive_blocks,
        top_up=earlier.top_up if earlier else (),
    )


# gate.previous, and gate.minDelta again on recorded counts: the rules that read more than one run's
# lines (a comparison, engine/changes.py). gate.previous (block | warn | off, default warn): a critical
# scenario that got worse against the base branch's (or the previous version's) recorded scores blocks,
# or is a warning. Under `strict`, any critical line whose with-skill rate is lower than at the base;
# under `evidence`, a critical scenario whose mean change has its whole 95% interval below 0. Lines that
# are not comparable (the eval or its criteria changed) never count. gate.minDelta is decided by the
# engine's gate (`short_of_min_delta`) on the run's own overall interval; the action applies it again to
# the recorded counts only when the recorded verdict has no minDelta reason yet.


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


def previous_rule(changes: Sequence[SkillChange], mode: str, rule: str, against: str = "the base") -> dict[str, Rules]:
    """`gate.previous` for each skill compared with the base: its reasons, blocking or warning."""
    if mode == "off":
        return {}
    out: dict[str, Rules] = {}
    for c in changes:
        reasons = tuple(worse_than_previous(c, rule, against))
        if reasons:
            out[c.name] = Rules(blocks=reasons) if mode == "block" else Rules(warnings=reasons)
    return out


def rule_outcomes(
    names: Sequence[str],
    changes: Mapping[str, SkillChange],
    effects: Mapping[str, Interval | None],
    gate: Any,
    against: str = "the base",
) -> dict[str, Rules]:
    """Both rules for each named skill, as the gate config sets them: `gate.previous` on its change
    against the base (`changes`), then `gate.minDelta` on its overall effect over no skill. `effects`
    holds the effect of each skill that was measured (None: measured, but no scored line); a skill
    not in it is left to `gate.previous` alone. The action (github/base.py), `verify --base`
    and `run --against` (wiring/previous.py, against the previous version) all decide here."""
    rule = str(getattr(gate, "rule", "strict"))
    previous = previous_rule(list(changes.values()), str(getattr(gate, "previous", "warn")), rule, against)
    out: dict[str, Rules] = {}
    for name in names:
        o = previous.get(name, Rules())
        short = short_of_min_delta(effects[name], getattr(gate, "min_delta", None), rule) if name in effects else None
        o = replace(o, blocks=(*o.blocks, short)) if short else o
        if o.blocks or o.warnings:
            out[name] = o
    return out


def blocking_rules(outcomes: Mapping[str, Rules]) -> list[str]:
    """The config keys whose rule blocked a skill: `gate.previous`, `gate.minDelta`, or both."""
    keys = {rule_key(r) for o in outcomes.values() for r in o.blocks}
    return [key for key in ("gate.previous", "gate.minDelta") if key in keys]


def _rate_f(counts: tuple[int, int]) -> float:
    return counts[0] / counts[1] if counts[1] else 0.0
