"""A simulation study of the release gate: runs with known true rates, decided by both rules.

    python bench/gate_simulation.py [--quick] [--runs N] [--rho 0.5] [--seed 1] [--markdown]

Layout: the reference's example, 2 critical scenarios of 3 criteria and 1 other of 2, one model.
An answer's criteria are correlated through the answer's overall quality (a probit model: criterion
j passes when sqrt(rho)·Z + sqrt(1-rho)·E_j < Φ⁻¹(p_j), Z shared by the answer). Two rate profiles:
`fixed` (different rates per scenario, the same in every run) and `random` (every criterion's rate
drawn from U(0.3, 0.95) in each run). Three truths: the skill changes nothing; it drops every
criterion of the first critical scenario by 30 points; it drops one of its criteria by 30 points.

For reps 3, 5, 10, 25 it prints: how often each rule blocks (a false block for the no-op skill, the
power for the drops), how often `evidence` says inconclusive, the power with --top-up (cap: the
default gate.topUpReps, 40), and the coverage of each displayed 95% interval (line deltas, scenario means,
the overall bootstrap). --quick (under a minute) uses fewer runs and bootstrap resamples.
Also times the bootstrap at its target size (3 models × 5 scenarios × 10 reps, 2,000 resamples)
against a baseline measured beside it: the same number of plain means without resampling.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

from skill_be.engine import stats
from skill_be.engine.gate import Gate, LineScore, decide, percent
from skill_be.engine.stats import ArmSample
from skill_be.engine.topup import plan_top_up
from skill_be.project.config import GateConfig
from skill_be.project.evals import Scenario

SCENARIOS = [
    Scenario(id="crit-1", prompt="p", critical=True, criteria=("a", "b", "c"), output=None),
    Scenario(id="crit-2", prompt="p", critical=True, criteria=("a", "b", "c"), output=None),
    Scenario(id="other", prompt="p", critical=False, criteria=("a", "b"), output=None),
]
FIXED_RATES = [[0.85, 0.75, 0.6], [0.5, 0.4, 0.35], [0.95, 0.6]]
MODEL = "m"
REPS = (3, 5, 10, 20, 25)
EFFECTS = ("no-op", "scenario -30", "criterion -30")
STRICT, EVIDENCE = GateConfig(), GateConfig(rule="evidence")
PHI_INV = NormalDist().inv_cdf


def rates_for(profile: str, rng: random.Random) -> list[list[float]]:
    if profile == "fixed":
        return [list(r) for r in FIXED_RATES]
    return [[rng.uniform(0.3, 0.95) for _ in sc.criteria] for sc in SCENARIOS]


def skill_rates(base: list[list[float]], effect: str) -> list[list[float]]:
    out = [list(r) for r in base]
    if effect == "scenario -30":
        out[0] = [max(0.0, p - 0.3) for p in out[0]]
    elif effect == "criterion -30":
        out[0][0] = max(0.0, out[0][0] - 0.3)
    return out


def answers(rates: Sequence[float], n: int, rho: float, rng: random.Random) -> list[list[bool]]:
    cut = [PHI_INV(min(max(p, 1e-9), 1 - 1e-9)) for p in rates]
    a, b = math.sqrt(rho), math.sqrt(1 - rho)
    gauss = rng.gauss
    out = []
    for _ in range(n):
        z = a * gauss(0.0, 1.0)
        out.append([z + b * gauss(0.0, 1.0) < c for c in cut])
    return out


@dataclass
class Sim:
    """One simulated run: each scenario's answers per arm, grown by a top-up."""

    base: list[list[float]]
    skill: list[list[float]]
    arms: list[tuple[list[list[bool]], list[list[bool]]]]
    rho: float
    rng: random.Random

    @classmethod
    def make(cls, base: list[list[float]], skill: list[list[float]], reps: int, rho: float, rng: random.Random) -> Sim:
        arms = [(answers(b, reps, rho, rng), answers(s, reps, rho, rng)) for b, s in zip(base, skill, strict=True)]
        return cls(base, skill, arms, rho, rng)

    def grow(self, index: int, more: int) -> None:
        b, s = self.arms[index]
        b += answers(self.base[index], more, self.rho, self.rng)
        s += answers(self.skill[index], more, self.rho, self.rng)

    def scores(self) -> list[LineScore]:
        out = []
        for sc, (b, s) in zip(SCENARIOS, self.arms, strict=True):
            for i, line in enumerate(sc.criteria):
                kb, ks = sum(x[i] for x in b), sum(x[i] for x in s)
                out.append(
                    LineScore(
                        sc.id,
                        line,
                        "criterion",
                        MODEL,
                        percent(kb, len(b)),
                        percent(ks, len(s)),
                        kb,
                        len(b),
                        ks,
                        len(s),
                    )
                )
        return out

    def samples(self) -> dict[tuple[str, str], tuple[ArmSample, ArmSample]]:
        return {
            (sc.id, MODEL): (ArmSample.of(b), ArmSample.of(s)) for sc, (b, s) in zip(SCENARIOS, self.arms, strict=True)
        }

    def decide(
        self, config: GateConfig, looks: int = 1, look: int = 1, earlier: Gate | None = None, resamples: int = 0
    ) -> Gate:
        return decide(
            self.scores(), SCENARIOS, [MODEL], 0, False, config, self.samples(), looks, look, earlier, resamples
        )


def with_top_up(sim: Sim, reps: int, cap: int = EVIDENCE.top_up_reps) -> Gate:
    if cap <= reps:  # nothing to top up: one look, as the run command does
        return sim.decide(EVIDENCE)
    first = sim.decide(EVIDENCE, looks=2)
    plan = plan_top_up(first, reps, cap)
    if not plan:
        return first
    ids = [sc.id for sc in SCENARIOS]
    for t in plan:
        sim.grow(ids.index(t.scenario), t.reps_to - t.reps_from)
    return sim.decide(EVIDENCE, looks=2, look=2, earlier=replace(first, top_up=tuple(plan)))


@dataclass
class Tally:
    runs: int = 0
    strict: int = 0
    evidence: int = 0
    inconclusive: int = 0
    top_up: int = 0
    top_up_reps: int = 0
    line_in: int = 0
    line_n: int = 0
    line_worst: dict[str, list[int]] | None = None
    pooled_in: int = 0
    pooled_n: int = 0
    overall_in: int = 0
    overall_n: int = 0

    def cover(self, key: str, hit: bool) -> None:
        worst = self.line_worst if self.line_worst is not None else {}
        self.line_worst = worst
        got = worst.setdefault(key, [0, 0])
        got[0] += hit
        got[1] += 1


def simulate(
    profile: str, effect: str, reps: int, runs: int, rho: float, resamples: int, boot_runs: int, seed: int
) -> Tally:
    rng = random.Random(f"{seed}/{profile}/{effect}/{reps}")
    t = Tally()
    for r in range(runs):
        base = rates_for(profile, rng)
        skill = skill_rates(base, effect)
        sim = Sim.make(base, skill, reps, rho, rng)
        t.runs += 1
        t.strict += not sim.decide(STRICT).ready
        boot = resamples if r < boot_runs else 0
        ev = sim.decide(EVIDENCE, resamples=boot)
        t.evidence += not ev.ready
        t.inconclusive += bool(ev.inconclusive)
        fx = ev.effects
        assert fx is not None
        for si, sc in enumerate(SCENARIOS):
            for i, line in enumerate(sc.criteria):
                truth = skill[si][i] - base[si][i]
                hit = fx.lines[(sc.id, MODEL, line)].contains(truth)
                t.line_in += hit
                t.line_n += 1
                if profile == "fixed":
                    t.cover(f"{sc.id}/{line}", hit)
            e = next(e for e in fx.scenarios if e.scenario == sc.id)
            t.pooled_in += e.interval.contains(sum(skill[si]) / len(skill[si]) - sum(base[si]) / len(base[si]))
            t.pooled_n += 1
        if boot:
            true_overall = sum(sum(s) / len(s) - sum(b) / len(b) for b, s in zip(base, skill, strict=True)) / len(base)
            t.overall_in += fx.overall.contains(true_overall)
            t.overall_n += 1
        grown = Sim(sim.base, sim.skill, [(list(b), list(s)) for b, s in sim.arms], rho, sim.rng)
        topped = with_top_up(grown, reps)
        t.top_up += not topped.ready
        t.top_up_reps += max((x.reps_to for x in topped.top_up), default=reps)
    return t


def pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "-"


def bench_bootstrap(repeat: int) -> tuple[float, float]:
    """Seconds for the target bootstrap, and for a baseline of the same number of plain means."""
    rng = random.Random(5)
    units = [
        [([rng.random() for _ in range(10)], [rng.random() for _ in range(10)]) for _ in range(3)] for _ in range(5)
    ]
    best, base = math.inf, math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        stats.bootstrap_effect(units, seed=1, resamples=2000)
        best = min(best, time.perf_counter() - started)
        started = time.perf_counter()
        for _ in range(2000):
            sum(sum(s) / len(s) - sum(b) / len(b) for u in units for b, s in u)
        base = min(base, time.perf_counter() - started)
    return best, base


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="fewer runs: under a minute")
    p.add_argument("--runs", type=int, help="runs per setting (default 2000, 200 with --quick)")
    p.add_argument("--rho", type=float, default=0.5, help="latent correlation of an answer's criteria")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--profiles", default="fixed,random")
    args = p.parse_args(argv)
    runs = args.runs or (200 if args.quick else 2000)
    resamples, boot_runs = (300, 40) if args.quick else (2000, 400)
    started = time.perf_counter()
    print(
        f"runs per setting {runs}, rho {args.rho}, bootstrap coverage on {min(boot_runs, runs)} runs × {resamples} resamples"
    )
    print()
    print(
        "| profile | truth | reps | strict blocks | evidence blocks | evidence inconclusive | evidence + top-up blocks (mean reps) | line CI coverage (worst line) | scenario CI coverage | overall CI coverage |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for profile in args.profiles.split(","):
        for effect in EFFECTS:
            for reps in REPS:
                t = simulate(profile, effect, reps, runs, args.rho, resamples, boot_runs, args.seed)
                worst = ""
                if t.line_worst:
                    _, (hit, n) = min(t.line_worst.items(), key=lambda kv: kv[1][0] / kv[1][1])
                    worst = f" ({pct(hit, n)})"
                print(
                    f"| {profile} | {effect} | {reps} | {pct(t.strict, t.runs)} | {pct(t.evidence, t.runs)} | "
                    f"{pct(t.inconclusive, t.runs)} | {pct(t.top_up, t.runs)} ({t.top_up_reps / t.runs:.1f}) | "
                    f"{pct(t.line_in, t.line_n)}{worst} | {pct(t.pooled_in, t.pooled_n)} | {pct(t.overall_in, t.overall_n)} |",
                    flush=True,
                )
    boot, base = bench_bootstrap(3)
    print()
    print(
        f"bootstrap, 3 models × 5 scenarios × 10 reps, 2,000 resamples: {boot:.3f} s "
        f"(baseline, 2,000 plain means of the same data: {base:.3f} s; ratio {boot / base:.1f}x; target < 1 s)"
    )
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
