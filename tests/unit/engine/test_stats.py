"""The interval math against published worked examples and hand-computed values."""

from __future__ import annotations

import random
import time

import pytest

from skill_be.engine import stats
from skill_be.engine.stats import ArmSample, Interval


def r4(x: float) -> float:
    return round(x, 4)


# Newcombe (1998), "Interval estimation for the difference between independent proportions",
# Statistics in Medicine 17:873-890, Table II, method 10 (hybrid score, no continuity correction).
# Each row: (m, n, x, y) for m/n - x/y, then the published lower and upper limits.
NEWCOMBE_TABLE_II = [
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
    (6, 7, 2, 7, 0.0582, 0.8062),
    (5, 56, 0, 29, -0.0381, 0.1926),
    (0, 10, 0, 20, -0.1611, 0.2775),
    (0, 10, 0, 10, -0.2775, 0.2775),
    (10, 10, 0, 20, 0.6791, 1.0000),
    (10, 10, 0, 10, 0.6075, 1.0000),
]


@pytest.mark.parametrize(("m", "n", "x", "y", "low", "high"), NEWCOMBE_TABLE_II)
def test_newcombe_method_10_matches_the_published_table(
    m: int, n: int, x: int, y: int, low: float, high: float
) -> None:
    # Our delta is with skill minus baseline: the table's first proportion is the with-skill arm.
    iv = stats.newcombe(x, y, m, n)
    assert r4(iv.estimate) == r4(m / n - x / y)
    assert (r4(iv.low), r4(iv.high)) == (low, high)


def test_newcombe_is_antisymmetric_in_the_arms() -> None:
    a, b = stats.newcombe(48, 80, 56, 70), stats.newcombe(56, 70, 48, 80)
    assert (r4(a.low), r4(a.high)) == (r4(-b.high), r4(-b.low))


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics in
# Medicine 17:857-872, Table I, method 3 (Wilson score, no continuity correction).
WILSON_TABLE_I = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), WILSON_TABLE_I)
def test_wilson_matches_the_published_table(k: int, n: int, low: float, high: float) -> None:
    assert tuple(map(r4, stats.wilson(k, n))) == (low, high)


def test_wilson_at_the_edges() -> None:
    # 0/n: the lower limit is exactly 0 and the upper z²/(n+z²); n/n mirrors it.
    z = 1.959963984540054
    lo, hi = stats.wilson(0, 5)
    assert lo == 0.0 and hi == pytest.approx(z * z / (5 + z * z))
    lo, hi = stats.wilson(5, 5)
    assert hi == 1.0 and lo == pytest.approx(5 / (5 + z * z))
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_newcombe_with_an_empty_arm_says_nothing() -> None:
    iv = stats.newcombe(0, 0, 3, 5)
    assert (iv.low, iv.high) == (-1.0, 1.0)


# Student's t quantiles from any printed table (e.g. Fisher & Yates), to 4 decimals.
T_TABLE = [
    (0.975, 1, 12.7062),
    (0.975, 2, 4.3027),
    (0.975, 5, 2.5706),
    (0.975, 10, 2.2281),
    (0.975, 30, 2.0423),
    (0.95, 4, 2.1318),
    (0.995, 3, 5.8409),
    (0.9, 20, 1.3253),
]


@pytest.mark.parametrize(("p", "df", "t"), T_TABLE)
def test_t_quantile_matches_the_table(p: float, df: int, t: float) -> None:
    assert round(stats.t_quantile(p, df), 4) == t
    assert round(stats.t_quantile(1 - p, df), 4) == -t


def test_t_quantile_tends_to_the_normal_one() -> None:
    assert stats.t_quantile(0.975, 100000) == pytest.approx(stats.z_two_sided(0.95), abs=1e-4)
    assert stats.t_cdf(0.0, 7) == pytest.approx(0.5)


def test_incomplete_beta_against_closed_forms() -> None:
    # I_x(1, b) = 1 - (1-x)^b and I_x(a, 1) = x^a.
    assert stats.incomplete_beta(1, 3, 0.2) == pytest.approx(1 - 0.8**3)
    assert stats.incomplete_beta(2.5, 1, 0.7) == pytest.approx(0.7**2.5)


def test_effect_labels() -> None:
    assert Interval(0.2, 0.05, 0.3).label == stats.BETTER
    assert Interval(-0.2, -0.3, -0.01).label == stats.WORSE
    assert Interval(0.0, -0.1, 0.1).label == stats.NO_CLEAR_DIFFERENCE


def test_pooled_delta_by_hand() -> None:
    # Baseline: 4 answers of 2 lines each passing 1, 1, 2, 0 -> shares .5 .5 1 0, mean .5, s² = 1/6.
    base = ArmSample.of([[True, False], [False, True], [True, True], [False, False]])
    assert base.mean == 0.5 and base.variance == pytest.approx(1 / 6)
    # n_eff = n p(1-p) / s² = 4 * .25 * 6 = 6, between n=4 and n*lines=8.
    assert base.effective_n() == pytest.approx(6.0)
    skill = ArmSample.of([[True, True]] * 4)
    assert skill.effective_n() == 8.0  # no spread: as many trials as lines
    iv = stats.pooled_delta(base, skill)
    t = stats.t_quantile(0.975, 6)  # df: 4 + 4 answers - 2
    lb, ub = stats.wilson_p(0.5, 6.0, t)
    ls, _ = stats.wilson_p(1.0, 8.0, t)
    assert iv.estimate == pytest.approx(0.5)
    assert iv.low == pytest.approx(0.5 - ((1 - ls) ** 2 + (ub - 0.5) ** 2) ** 0.5)
    assert iv.high == pytest.approx(0.5 + (0.5 - lb))


def test_pooled_delta_correlated_answers_are_wider_than_independent_ones() -> None:
    # Same rates; in `together` an answer passes all its lines or none.
    together = ArmSample.of([[True] * 4] * 5 + [[False] * 4] * 5)
    apart = ArmSample.of([[True, True, False, False]] * 10)
    ref = ArmSample.of([[True] * 4] * 10)
    wide, narrow = stats.pooled_delta(together, ref), stats.pooled_delta(apart, ref)
    assert wide.estimate == narrow.estimate == 0.5
    assert wide.high - wide.low > narrow.high - narrow.low
    assert together.effective_n() == 10.0  # fully correlated: one trial per answer


def test_reps_to_decide_by_hand() -> None:
    # z² V / h²: 1.96² * 0.5 / 0.2² = 48.02 -> 49.
    assert stats.reps_to_decide(0.5, 0.2, 1.96) == 49
    assert stats.reps_to_decide(0.5, 0.0, 1.96) == stats.REPS_CAP + 1


def test_bootstrap_is_seeded_and_reproducible() -> None:
    units = [[([0.0, 0.5, 1.0], [1.0, 1.0, 0.5])], [([0.5, 0.5], [0.5, 1.0])]]
    a = stats.bootstrap_effect(units, seed=7, resamples=500)
    b = stats.bootstrap_effect(units, seed=7, resamples=500)
    c = stats.bootstrap_effect(units, seed=8, resamples=500)
    assert a == b and a != c
    # the estimate is the mean over scenarios of the per-scenario delta: (1/3... by hand)
    assert a.estimate == pytest.approx(((2.5 / 3 - 0.5) + (0.75 - 0.5)) / 2)
    assert a.low <= a.estimate <= a.high


def test_bootstrap_of_identical_arms_is_a_point() -> None:
    units = [[([1.0, 1.0], [1.0, 1.0])], [([0.0, 0.0], [0.0, 0.0])]]
    assert stats.bootstrap_effect(units, seed=1, resamples=200) == Interval(0.0, 0.0, 0.0)


def test_content_seed_is_sha256_not_hash() -> None:
    # Fixed across processes and Python versions (hash() of a str is salted per process).
    assert stats.content_seed("a", [1, 2]) == int.from_bytes(
        __import__("hashlib").sha256(repr(("a", [1, 2])).encode()).digest()[:8], "big"
    )


def test_bootstrap_size_of_the_target_runs() -> None:
    """3 models × 5 scenarios × 10 reps (4 criteria collapsed into shares), 2,000 resamples. The time
    is printed, not asserted (bench/gate_simulation.py measures it); the result must be sane."""
    rng = random.Random(3)
    units = [
        [([rng.random() for _ in range(10)], [rng.random() for _ in range(10)]) for _ in range(3)] for _ in range(5)
    ]
    started = time.perf_counter()
    iv = stats.bootstrap_effect(units, seed=11)
    print(f"bootstrap: {time.perf_counter() - started:.3f} s")
    assert -0.3 < iv.low < iv.estimate < iv.high < 0.3


def test_pooled_delta_of_one_line_is_the_lines_newcombe_interval() -> None:
    base = ArmSample.of([[False], [True], [False], [False], [True]])
    skill = ArmSample.of([[True]] * 5)
    got, want = stats.pooled_delta(base, skill), stats.newcombe(2, 5, 5, 5)
    assert (got.estimate, got.low, got.high) == pytest.approx((want.estimate, want.low, want.high))
