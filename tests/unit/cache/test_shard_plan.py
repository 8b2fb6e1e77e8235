"""The cut of a run into shards: deterministic, balanced by calls, never splitting a rep."""

from __future__ import annotations

import pytest

from skill_be.errors import UsageError
from skill_be.results.shards import Shard, assign, parse_shard

# 3 scenarios with 1 + 3 gradings per arm (8 calls a rep) and one without criteria (2 calls a rep)
PLAN = [(("s", f"sc{i}", m, rep), 8 if i < 3 else 2) for i in range(4) for m in ("m1", "m2") for rep in (1, 2, 3)]


def test_the_cut_is_deterministic_covers_every_unit_once_and_balances_the_calls() -> None:
    for n in (1, 2, 3, 4, 5):
        where = assign(PLAN, n)
        assert where == assign(list(PLAN), n)
        assert set(where) == {u for u, _ in PLAN} and set(where.values()) <= set(range(1, n + 1))
        load = [sum(c for u, c in PLAN if where[u] == k) for k in range(1, n + 1)]
        assert sum(load) == sum(c for _, c in PLAN)
        assert max(load) - min(load) <= 8, (n, load)  # at most one heaviest unit apart


def test_shard_parsing() -> None:
    assert parse_shard("2/4") == Shard(2, 4) and parse_shard(" 1/1 ") == Shard(1, 1)
    for bad in ("0/4", "5/4", "2", "a/b", "2/4/8", "-1/4"):
        with pytest.raises(UsageError):
            parse_shard(bad)
