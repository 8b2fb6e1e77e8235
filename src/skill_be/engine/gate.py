"""Scores per line, arm and model, and the release gate's three rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill_be.engine.observations import Output
from skill_be.engine.prompts import BASELINE, WITH_SKILL
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario
from skill_be.reports import strings as s


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


@dataclass(frozen=True)
class ScenarioLines:
    scenario: Scenario
    tests: tuple[str, ...]

    @property
    def labels(self) -> list[tuple[str, str]]:
        return [(c, "criterion") for c in self.scenario.criteria] + [(s.TEST_PREFIX + t, "test") for t in self.tests]


def score_lines(lines: ScenarioLines, model: str, outputs: Sequence[Output]) -> list[LineScore]:
    """Each line's share of reps that passed, per arm, for one scenario on one model."""
    n = len(lines.scenario.criteria)
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


@dataclass(frozen=True)
class Gate:
    ready: bool
    zero: tuple[tuple[str, str], ...]  # (scenario, line) at 0% with the skill on every model
    regressions: tuple[LineScore, ...]  # critical lines that scored lower with the skill
    errors: int
    error_blocks: bool
    has_tests: bool

    def section(self) -> list[str]:
        """The Release Gate section of a report, in the fixed strings."""
        out = [s.RELEASE_GATE_HEADING, ""]
        bullets: list[str] = []
        if self.errors:
            line = (s.ERROR_LINE_WITH_TESTS if self.has_tests else s.ERROR_LINE).format(n=self.errors)
            bullets.append(line if self.error_blocks else f"{line} Not blocking: gate.blockOnErrors is false.")
        bullets += [s.BLOCKED_ZERO.format(scenario=sc, line=line) for sc, line in self.zero]
        bullets += [
            s.BLOCKED_REGRESSION.format(
                scenario=r.scenario,
                model=r.model,
                line=r.line,
                baseline=r.baseline,
                with_skill=r.with_skill,
                delta=s.signed(r.delta),
            )
            for r in self.regressions
        ]
        if self.ready:
            out += [*bullets, ""] if bullets else []
            out.append(s.READY_LINE)
        else:
            out += [*bullets, "", s.NOT_READY_LINE]
        return out

    def reasons(self) -> list[str]:
        """The blocking reasons in plain words, for the result file and summary.json."""
        out: list[str] = []
        if self.errors and self.error_blocks:
            what = (
                "error(s): outputs not generated or graded, or code tests not run"
                if self.has_tests
                else ("output(s) could not be generated or graded")
            )
            out.append(f"{self.errors} {what}")
        out += [f'universal 0%: {sc} — "{line}"' for sc, line in self.zero]
        out += [
            f'regression: {r.scenario} / {r.model} — "{r.line}": {r.baseline}% → {r.with_skill}% ({s.signed(r.delta)}pp)'
            for r in self.regressions
        ]
        return out


def decide(
    scores: Sequence[LineScore],
    scenarios: Sequence[Scenario],
    models: Sequence[str],
    errors: int,
    has_tests: bool,
    config: GateConfig,
) -> Gate:
    """READY unless an enabled rule holds. Zero: 0% with the skill on every model. Regression: a
    critical scenario's line lower with the skill than without, on any model. Errors: any at all."""
    critical = {sc.id for sc in scenarios if sc.critical}
    zero: list[tuple[str, str]] = []
    if config.block_on_zero:
        keys = list(dict.fromkeys((x.scenario, x.line) for x in scores))
        for key in keys:
            per_model = [x for x in scores if (x.scenario, x.line) == key]
            if len(per_model) == len(models) and all(x.with_skill == 0 for x in per_model):
                zero.append(key)
    regressions = tuple(
        x for x in scores if config.regression_on_critical and x.scenario in critical and x.with_skill < x.baseline
    )
    error_blocks = config.block_on_errors and errors > 0
    ready = not zero and not regressions and not error_blocks
    return Gate(ready, tuple(zero), regressions, errors, config.block_on_errors, has_tests)
