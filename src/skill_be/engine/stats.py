"""The interval math behind the deltas and the evidence gate: pure functions, standard library only.

- `wilson`: the score interval for one proportion (Wilson 1927), exact at 0/n and n/n.
- `newcombe`: a line's delta (with skill minus baseline) with Newcombe's hybrid score interval
  (method 10 of Newcombe 1998), built from the two arms' Wilson intervals.
- `pooled_delta`: a scenario's delta (the mean over its lines) with an interval that treats the
  criteria of one answer as correlated: each arm's effective sample size comes from the observed
  between-answer variance, and a Student-t quantile replaces the normal one.
- `bootstrap_effect`: the skill's overall effect across scenarios, a seeded two-level bootstrap.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

LOW_SAMPLE_ANSWERS = 10  # fewer answers than this in an arm: the intervals are wide, and flagged
BETTER, NO_CLEAR_DIFFERENCE, WORSE = "better", "no clear difference", "worse"
REPS_CAP = 1000  # "reps that would decide" above this is reported as more than it


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval; for deltas, fractions in [-1, 1] (with skill minus baseline)."""

    estimate: float
    low: float
    high: float

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    @property
    def label(self) -> str:
        return effect_label(self)


def effect_label(iv: Interval) -> str:
    """ "better" when the whole interval is above zero, "worse" when below, else "no clear difference"."""
    if iv.low > 0:
        return BETTER
    if iv.high < 0:
        return WORSE
    return NO_CLEAR_DIFFERENCE


def low_sample(answers: int) -> bool:
    """The one definition of "low sample", for lines, scenarios and the overall effect alike."""
    return answers < LOW_SAMPLE_ANSWERS


def nested_why(parent: str, children: Sequence[str], what: str, less_sure: str = "") -> str | None:
    """Why a level's label differs from the labels of what it is made of (its lines, or its
    scenarios), or None when they agree. Every report that shows nested labels says this next to
    the parent, so two labels never contradict each other without a reason."""
    decided = [c for c in children if c != NO_CLEAR_DIFFERENCE]
    if parent == NO_CLEAR_DIFFERENCE and decided:
        words = " and ".join(f"{decided.count(w)} {w}" for w in (BETTER, WORSE) if w in decided)
        because = less_sure or f"it averages {what} that moved with others that did not"
        return f"{words} of its {len(children)} {what} on their own; the mean over all of them is less sure: {because}"
    if parent != NO_CLEAR_DIFFERENCE and any(c not in (parent, NO_CLEAR_DIFFERENCE) for c in children):
        other = WORSE if parent == BETTER else BETTER
        n = sum(1 for c in children if c == other)
        return f"{n} of its {len(children)} {what} went the other way ({other}); the mean over all of them is {parent}"
    if parent != NO_CLEAR_DIFFERENCE and children and not decided:
        return f"none of its {len(children)} {what} is sure on its own; together they are, since the mean pools them"
    return None


def z_two_sided(confidence: float) -> float:
    """The normal quantile for a two-sided interval at `confidence` (0.95 gives 1.95996...)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def z_one_sided(alpha: float) -> float:
    """The normal quantile whose upper tail is `alpha` (0.05 gives 1.64485...)."""
    return NormalDist().inv_cdf(1 - alpha)


# --- Student's t, through the regularized incomplete beta function -------------------------------


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The t value below which a share `p` of Student's t with `df` degrees of freedom lies."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):  # bisection: the cdf is monotone, and 200 halvings reach double precision
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


# --- one proportion, and a line's delta ----------------------------------------------------------


def wilson_p(p: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson interval for an observed share `p` of `n` trials (n may be an effective size)."""
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(max(p * (1.0 - p), 0.0) / n + z2 / (4.0 * n * n)) / denom
    low = 0.0 if p <= 0.0 else max(0.0, center - half)
    high = 1.0 if p >= 1.0 else min(1.0, center + half)
    return low, high


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval for `k` successes of `n` (0 to 1 when n is 0)."""
    return wilson_p(k / n if n else 0.0, n, z)


def _hybrid(pb: float, base: tuple[float, float], ps: float, skill: tuple[float, float]) -> Interval:
    """Newcombe's square-and-add of two single-arm intervals into one for ps - pb."""
    d = ps - pb
    low = d - math.sqrt((ps - skill[0]) ** 2 + (base[1] - pb) ** 2)
    high = d + math.sqrt((skill[1] - ps) ** 2 + (pb - base[0]) ** 2)
    return Interval(d, max(-1.0, low), min(1.0, high))


def newcombe(kb: int, nb: int, ks: int, ns: int, z: float = 1.959963984540054) -> Interval:
    """The with-skill minus baseline delta of a line (ks/ns - kb/nb) with Newcombe's hybrid score
    interval (method 10); `z` sets the level (1.96 for 95% two-sided)."""
    pb = kb / nb if nb else 0.0
    ps = ks / ns if ns else 0.0
    if not nb or not ns:  # an arm with no answer says nothing about the difference
        return Interval(ps - pb, -1.0, 1.0)
    return _hybrid(pb, wilson(kb, nb, z), ps, wilson(ks, ns, z))


def reps_to_decide(variance: float, half_width: float, z: float) -> int:
    """Reps per arm at which an interval with per-rep `variance` (both arms summed) narrows to
    `half_width`; REPS_CAP + 1 when it never would (a zero half-width)."""
    if half_width <= 0:
        return REPS_CAP + 1
    return min(REPS_CAP + 1, max(1, math.ceil(z * z * variance / (half_width * half_width))))


def line_variance(kb: int, nb: int, ks: int, ns: int) -> float:
    """Per-rep variance of a line's delta, from shares shrunk toward 1/2 so 0/n and n/n are not 0."""
    pb = (kb + 1) / (nb + 2)
    ps = (ks + 1) / (ns + 2)
    return pb * (1 - pb) + ps * (1 - ps)


# --- a scenario's pooled delta --------------------------------------------------------------------


@dataclass(frozen=True)
class ArmSample:
    """One arm of one scenario on one model: each answer's share of lines passed."""

    shares: tuple[float, ...]
    lines: int

    @classmethod
    def of(cls, passes: Sequence[Sequence[bool]]) -> ArmSample:
        lines = len(passes[0]) if passes else 0
        return cls(tuple(sum(p) / lines if lines else 0.0 for p in passes), lines)

    @property
    def n(self) -> int:
        return len(self.shares)

    @property
    def mean(self) -> float:
        return sum(self.shares) / len(self.shares) if self.shares else 0.0

    @property
    def variance(self) -> float:
        """The between-answer sample variance of the shares."""
        n = len(self.shares)
        if n < 2:
            return 0.0
        m = self.mean
        return sum((x - m) ** 2 for x in self.shares) / (n - 1)

    def effective_n(self) -> float:
        """Independent trials the arm is worth: n·p(1-p)/s², kept between n (every criterion of an
        answer moves together) and n·lines (criteria independent)."""
        n, most = float(self.n), float(self.n * max(self.lines, 1))
        p = self.mean
        s2 = self.variance
        if s2 <= 0:
            return most
        return min(most, max(n, n * p * (1 - p) / s2))

    def per_answer_variance(self) -> float:
        """The variance of one answer's share, never below what a shrunk share would give one answer
        with fully correlated lines over `lines`, so an arm with no spread is not certain."""
        p = (self.mean * self.n + 1) / (self.n + 2)
        floor = p * (1 - p) / max(self.lines, 1)
        return max(self.variance, floor)


def pooled_delta(base: ArmSample, skill: ArmSample, confidence: float = 0.95) -> Interval:
    """A scenario's delta (mean over its lines, with skill minus baseline) with an interval for
    answers whose criteria are correlated: each arm's Wilson interval at its effective sample size
    with a Student-t quantile (df = both arms' answers - 2), combined as in Newcombe's hybrid. A scenario of one
    line gets that line's interval."""
    if base.n == 0 or skill.n == 0:
        return Interval(skill.mean - base.mean, -1.0, 1.0)
    upper = 0.5 + confidence / 2
    if max(base.lines, skill.lines) <= 1:
        # One line: nothing to estimate about correlation, the interval is the line's own (Newcombe's).
        zb = zs = NormalDist().inv_cdf(upper)
    else:
        # The delta's variance is estimated from both arms' answers: df = answers in both - 2.
        zb = zs = t_quantile(upper, max(base.n + skill.n - 2, 1))
    pb, ps = base.mean, skill.mean
    return _hybrid(pb, wilson_p(pb, base.effective_n(), zb), ps, wilson_p(ps, skill.effective_n(), zs))


def pooled_reps_to_decide(base: ArmSample, skill: ArmSample, half_width: float, z: float) -> int:
    return reps_to_decide(base.per_answer_variance() + skill.per_answer_variance(), half_width, z)


# --- the overall effect ------------------------------------------------------------------------------

# A scenario for the bootstrap: per model, the (baseline, with-skill) answer shares.
Unit = Sequence[tuple[Sequence[float], Sequence[float]]]


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _unit_effect(unit: Unit) -> float:
    return _mean([_mean(s) - _mean(b) for b, s in unit])


def content_seed(*parts: object) -> int:
    """A seed from the run's content (SHA-256 of its repr), the same on every machine and Python."""
    digest = hashlib.sha256(repr(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def bootstrap_effect(units: Sequence[Unit], seed: int, resamples: int = 2000, confidence: float = 0.95) -> Interval:
    """The mean over scenarios of each scenario's delta (itself the mean over models), with a
    percentile interval from a two-level bootstrap: scenarios with replacement, then answers with
    replacement within each arm of each model of each chosen scenario."""
    units = [u for u in units if u and all(b and s for b, s in u)]
    if not units or resamples < 1:
        return Interval(0.0, -1.0, 1.0)
    estimate = _mean([_unit_effect(u) for u in units])
    rng = random.Random(seed)
    choices, k = rng.choices, len(units)
    stats: list[float] = []
    for _ in range(resamples):
        total = 0.0
        for unit in choices(units, k=k):
            per_model = 0.0
            for b, s in unit:
                per_model += sum(choices(s, k=len(s))) / len(s) - sum(choices(b, k=len(b))) / len(b)
            total += per_model / len(unit)
        stats.append(total / k)
    stats.sort()
    tail = (1 - confidence) / 2
    low = stats[max(0, math.floor(tail * resamples))]
    high = stats[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return Interval(estimate, low, high)
