"""The batcher (adapters/batch.py) over an in-process wire: the engine's calls of a phase go in one
batch whatever the concurrency limit; a failed item goes again once, then its call fails; a journaled
item is fetched, never submitted; a batch whose polling fails is never submitted again. The batch
price (pricing's batchDiscount) and the progress line."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.support.engine import engine, scenario, settings, skill

from skill_be.adapters.base import Answer, CallContext, CallError
from skill_be.adapters.batch import (
    Batcher,
    BatchProgress,
    BatchState,
    Item,
    ItemResult,
    Submitted,
    Timing,
    body_digest,
)
from skill_be.engine.calls import Model
from skill_be.project.config import Price
from skill_be.reports.batch import progress_line

FAST = Timing(poll_seconds=0.001, settle_seconds=0.01, max_poll_seconds=0.002)


@dataclass
class Wire:
    """A provider that answers every item with its body's prompt, failing the ids in `fail` (each id
    the set holds fails once); `broken` makes polling raise."""

    provider: str = "scripted"
    batches: dict[str, list[Item]] = field(default_factory=dict)
    fail: set[str] = field(default_factory=set)
    broken: bool = False

    async def submit(self, items: Sequence[Item]) -> str:
        bid = f"b{len(self.batches) + 1}"
        self.batches[bid] = list(items)
        return bid

    async def state(self, batch_id: str) -> BatchState:
        if self.broken:
            raise CallError("HTTP 403: no")
        return BatchState(True, len(self.batches[batch_id]), 0)

    async def results(self, batch_id: str) -> dict[str, ItemResult]:
        out = {}
        for i in self.batches[batch_id]:
            failed = i.custom_id.rsplit("-", 1)[0] in self.fail and i.custom_id.endswith("-1")
            out[i.custom_id] = ItemResult(None, "expired") if failed else ItemResult(i.body)
        return out


class Inner:
    label = "m"

    def batch_body(self, prompt: str, ctx: CallContext) -> dict[str, object]:
        return {"model": "m", "prompt": prompt}

    def read(self, data: object) -> Answer:
        assert isinstance(data, dict)
        prompt = str(data["prompt"])
        return Answer("Looked.\nVERDICTS:\n1: YES" if "VERDICTS" in prompt else f"answer to {prompt[-12:]}")

    def describe(self) -> Mapping[str, object]:
        return {"adapter": "scripted"}


@dataclass
class Journal:
    entries: list[Submitted] = field(default_factory=list)

    def submitted(self) -> Sequence[Submitted]:
        return list(self.entries)

    def add(self, entry: Submitted) -> None:
        self.entries.append(entry)


def batcher(wire: Wire, journal: Journal | None = None, told: list[BatchProgress] | None = None) -> Batcher:
    sink = told if told is not None else []
    return Batcher("m", Inner(), wire, journal or Journal(), sink.append, FAST)  # type: ignore[arg-type]


def run_skill(b: Batcher, concurrency: int) -> None:
    model = Model("m", b)
    sk = skill(scenarios=[scenario(f"s{i}") for i in range(1, 4)])
    eng = engine([model], model, settings(reps=2), concurrency=concurrency)
    run = asyncio.run(eng.run_skill(sk, 0))
    assert run.errors == 0


def test_the_calls_of_a_phase_wait_in_one_batch_whatever_the_concurrency_limit() -> None:
    wire, journal = Wire(), Journal()
    b = batcher(wire, journal)
    run_skill(b, concurrency=1)
    # 3 scenarios x 2 reps x 2 arms generations, then as many gradings: two batches in all
    assert [len(items) for items in wire.batches.values()] == [12, 12]
    assert [e.batch_id for e in journal.entries] == ["b1", "b2"] and b.submitted_items == 24


def test_control_a_model_under_the_limit_gets_batches_of_one() -> None:
    wire = Wire()
    b = batcher(wire)
    b.waits_in_batch = False  # the engine then holds each call to a slot of the limit
    run_skill(b, concurrency=1)
    assert {len(items) for items in wire.batches.values()} == {1} and len(wire.batches) == 24


async def _calls(b: Batcher, prompts: Sequence[str]) -> list[Answer | BaseException]:
    ctx = CallContext(30, Path("."))
    return list(await asyncio.gather(*(b.complete(p, ctx) for p in prompts), return_exceptions=True))


def test_a_failed_item_goes_in_the_next_batch_once_then_its_call_fails() -> None:
    wire = Wire()
    b = batcher(wire)
    first = {"model": "m", "prompt": "one"}
    wire.fail = {f"{body_digest(first)}-0"}
    got = asyncio.run(_calls(b, ["one", "two"]))
    assert all(isinstance(a, Answer) for a in got)
    assert [[i.custom_id.rsplit("-", 1)[1] for i in items] for items in wire.batches.values()] == [["1", "1"], ["2"]]

    class Always(Wire):
        async def results(self, batch_id: str) -> dict[str, ItemResult]:
            return {i.custom_id: ItemResult(None, "expired") for i in self.batches[batch_id]}

    always = Always()
    got = asyncio.run(_calls(batcher(always), ["one"]))
    assert isinstance(got[0], CallError) and str(got[0]) == "scripted batch: expired (in 2 batches)"
    assert len(always.batches) == 2  # once more, never a third time


def test_a_journaled_item_is_fetched_and_never_submitted_again() -> None:
    wire = Wire()
    asyncio.run(_calls(batcher(wire, journal := Journal()), ["one", "one", "two"]))
    assert len(wire.batches) == 1 and len(journal.entries) == 1
    told: list[BatchProgress] = []
    again = batcher(wire, journal, told)  # a resumed run: the same journal
    got = asyncio.run(_calls(again, ["two", "one", "one"]))
    assert [a.text for a in got if isinstance(a, Answer)] == ["answer to two", "answer to one", "answer to one"]
    assert len(wire.batches) == 1 and again.submitted_items == 0
    assert told and all(p.resumed for p in told)
    # control: a journal of another model's batches is no help: everything is submitted
    other = Journal([Submitted("other", e.provider, e.batch_id, e.items) for e in journal.entries])
    asyncio.run(_calls(batcher(wire, other), ["one"]))
    assert len(wire.batches) == 2


def test_a_batch_whose_polling_fails_is_never_submitted_again() -> None:
    wire = Wire(broken=True)
    got = asyncio.run(_calls(batcher(wire), ["one"]))
    assert isinstance(got[0], CallError) and "batch b1: HTTP 403: no" in str(got[0])
    assert len(wire.batches) == 1


def test_the_batch_price_takes_the_discount_off_every_price() -> None:
    p = Price(3, 15, 3.75, 0.3)
    assert p.batched() == Price(1.5, 7.5, 1.875, 0.15, 0.5)
    assert p.batched().dollars(1_000_000, 1_000_000) == pytest.approx(p.dollars(1_000_000, 1_000_000) / 2)
    assert Price(3, 15, batch_discount=0).batched().dollars(10, 10) == Price(3, 15).dollars(10, 10)  # control


def test_the_progress_line_says_submitted_done_failed_and_the_providers_end() -> None:
    line = progress_line(BatchProgress("claude", "msgbatch_1", 40, 12, 1, False, "2026-12-09T00:00:00Z"))
    assert line == (
        "[batch] claude: msgbatch_1 (submitted) 40 submitted, 12 done, 1 failed, the provider ends it by "
        "2026-12-09T00:00:00Z"
    )
    assert progress_line(BatchProgress("claude", "b", 2, 2, 0, True, None, resumed=True)).endswith(
        "(fetched from an earlier run) 2 submitted, 2 done, 0 failed, ended"
    )


@dataclass
class SlowWire(Wire):
    """A provider that takes a while to accept a batch."""

    started: asyncio.Event = field(default_factory=asyncio.Event)

    async def submit(self, items: Sequence[Item]) -> str:
        self.started.set()
        await asyncio.sleep(0.05)
        return await super().submit(items)


async def _interrupted(drain: bool) -> tuple[SlowWire, Journal]:
    wire, journal = SlowWire(), Journal()
    b = batcher(wire, journal)
    ctx = CallContext(30, Path("."))
    call = asyncio.create_task(b.complete("one", ctx))
    await wire.started.wait()  # its batch is being submitted
    late = asyncio.create_task(b.complete("two", ctx))
    await asyncio.sleep(0)
    call.cancel()
    late.cancel()  # both callers give up, as on Ctrl-C
    if drain:
        await b.drain(5)
        await asyncio.sleep(0.05)  # past the settle time: a call given up is never sent
    for task in [*b._tasks, *b._submissions, *([b._collector] if b._collector else [])]:
        task.cancel()  # what the event loop's shutdown does to what is left
    await asyncio.sleep(0)
    return wire, journal


def test_an_interrupted_run_journals_the_batch_in_submission_and_sends_no_call_given_up() -> None:
    wire, journal = asyncio.run(_interrupted(drain=True))
    assert [len(items) for items in wire.batches.values()] == [1] and len(journal.entries) == 1
    # control: without the drain the batch the provider may accept is never journaled
    wire, journal = asyncio.run(_interrupted(drain=False))
    assert not journal.entries
