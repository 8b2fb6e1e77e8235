"""Trigger scores and the gate's trigger keys: rates with Wilson intervals, the confusion table, and
each rule's decision exactly at its boundaries."""

from __future__ import annotations

import pytest

from skill_be.engine.trigger_scores import (
    BLOCK,
    INCONCLUSIVE,
    MAX_FALSE_TRIGGER,
    MIN_RECALL,
    PASS,
    Observation,
    Rate,
    check,
    decide,
)
from skill_be.project.config import GateConfig
from skill_be.project.triggers import NEAR, SHOULD, SHOULD_NOT, TriggerGate, TriggerQuery

Q_SHOULD = TriggerQuery("parse 1h 5m", SHOULD, ("triggers", "should", 0))
Q_NOT = TriggerQuery("capital of Egypt", SHOULD_NOT, ("triggers", "shouldNot", 0))
Q_NEAR = TriggerQuery("split the bill", NEAR, ("triggers", "shouldNot", 1))


def obs(q: TriggerQuery, chosen: str | None, rep: int = 1, error: str | None = None) -> Observation:
    return Observation(q, "m1", rep, chosen, error)


def test_rates_confusion_and_errors_left_out() -> None:
    o = [
        obs(Q_SHOULD, "duration", 1),
        obs(Q_SHOULD, None, 2),
        obs(Q_SHOULD, "money", 3),
        obs(Q_SHOULD, None, 4, error="HTTP 500"),
        obs(Q_NOT, "duration", 1),
        obs(Q_NOT, None, 2),
        obs(Q_NEAR, "money", 1),
    ]
    gate = GateConfig(trigger=TriggerGate(min_recall=50))
    r = decide("duration", ["duration", "money"], [Q_SHOULD, Q_NOT, Q_NEAR], ["m1"], o, 4, gate)
    m = r.models[0]
    assert (m.recall, m.false_trigger, m.near_miss, m.errors) == (Rate(1, 3), Rate(1, 2), Rate(0, 1), 1)
    assert m.confusion == {
        SHOULD: {"duration": 1, "money": 1, "(none)": 1},
        SHOULD_NOT: {"duration": 1, "money": 0, "(none)": 1},
        NEAR: {"duration": 0, "money": 1, "(none)": 0},
    }
    assert [(c.key, c.outcome) for c in r.checks] == [(MIN_RECALL, BLOCK)]  # 33% < 50%
    assert not r.ready
    # a failed call blocks under blockOnErrors, and only then
    ok = decide("duration", ["duration"], [Q_SHOULD], ["m1"], [obs(Q_SHOULD, None, error="x")], 1, GateConfig())
    assert not ok.ready and ok.checks == ()
    off = GateConfig(block_on_errors=False)
    assert decide("duration", ["duration"], [Q_SHOULD], ["m1"], [obs(Q_SHOULD, None, error="x")], 1, off).ready


def test_unset_keys_report_and_never_block() -> None:
    o = [obs(Q_SHOULD, None), obs(Q_NOT, "duration")]
    r = decide("duration", ["duration"], [Q_SHOULD, Q_NOT], ["m1"], o, 1, GateConfig())
    assert r.checks == () and r.ready


def test_wilson_interval_of_a_rate() -> None:
    iv = Rate(4, 6).interval()
    assert (round(iv.low, 3), round(iv.high, 3)) == (0.3, 0.903)
    assert Rate(0, 0).interval().low == 0.0 and Rate(0, 0).interval().high == 1.0


@pytest.mark.parametrize(
    ("key", "threshold", "hits", "total", "outcome"),
    [
        (MIN_RECALL, 80, 8, 10, PASS),  # exactly at the threshold holds
        (MIN_RECALL, 80, 7, 10, BLOCK),
        (MAX_FALSE_TRIGGER, 10, 1, 10, PASS),
        (MAX_FALSE_TRIGGER, 10, 2, 10, BLOCK),
    ],
)
def test_strict_uses_the_point_estimate(key: str, threshold: float, hits: int, total: int, outcome: str) -> None:
    assert check("m1", key, threshold, Rate(hits, total), "strict", 5, 2).outcome == outcome


@pytest.mark.parametrize(
    ("key", "threshold", "hits", "total", "outcome"),
    [
        (MIN_RECALL, 50, 0, 30, BLOCK),  # 0-11%: wholly below 50%
        (MIN_RECALL, 50, 30, 30, PASS),  # 89-100%: wholly above
        (MIN_RECALL, 80, 7, 10, INCONCLUSIVE),  # 40-89%: straddles 80%
        (MAX_FALSE_TRIGGER, 50, 4, 4, BLOCK),  # 51-100%: wholly above 50%
        (MAX_FALSE_TRIGGER, 60, 4, 4, INCONCLUSIVE),
        (MAX_FALSE_TRIGGER, 20, 0, 30, PASS),  # 0-11%
    ],
)
def test_evidence_blocks_only_on_the_whole_interval(
    key: str, threshold: float, hits: int, total: int, outcome: str
) -> None:
    c = check("m1", key, threshold, Rate(hits, total), "evidence", 5, 2)
    assert c.outcome == outcome
    if outcome == INCONCLUSIVE:
        assert c.reps > 2  # the reps per query that would decide it, more than were made


def test_reps_that_would_decide_shrink_as_the_rate_moves_away() -> None:
    near = check("m1", MIN_RECALL, 80, Rate(7, 10), "evidence", 5, 2).reps
    far = check("m1", MIN_RECALL, 80, Rate(6, 10), "evidence", 5, 2)
    assert far.outcome == INCONCLUSIVE and far.reps < near


def test_inconclusive_blocks_with_gate_inconclusive_block() -> None:
    o = [obs(Q_SHOULD, "duration", rep) for rep in (1, 2)] + [obs(Q_SHOULD, None, 3)]
    cfg = GateConfig(rule="evidence", inconclusive="block", trigger=TriggerGate(min_recall=60))
    r = decide("duration", ["duration"], [Q_SHOULD], ["m1"], o, 3, cfg)
    assert r.checks[0].outcome == INCONCLUSIVE and not r.ready
    r = decide("duration", ["duration"], [Q_SHOULD], ["m1"], o, 3, cfg._replace(inconclusive="pass"))
    assert r.ready
