"""Batch mode at the adapter seam: a model whose calls wait for one provider batch instead of being
sent one by one. `Batcher` wraps an HTTP adapter that has a batch API (`batch_wire()`); each call
builds the very body the adapter would send alone (`batch_body`), joins the model's next batch, and
gets its answer when that batch has ended. A batch is submitted once no new call has joined for
`Timing.settle_seconds` (every runnable call of the phase is waiting), polled with backoff, and its
items handed back; an item the batch failed, expired or cancelled joins the next batch once, then its
call fails. Each submitted batch goes to the `Journal` at once (the run folder's `batches.json`), so
a resumed run fetches the items of a journaled batch instead of paying for them again."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from skill_be.adapters.base import Answer, CallContext, CallError

if TYPE_CHECKING:
    import httpx

    from skill_be.adapters.http_common import HttpAdapter

ATTEMPTS = 2  # an item's first batch and one more
HTTP_TRIES = 4  # a batch endpoint's request: the first try and three more on 429, 5xx or no answer
HTTP_TIMEOUT = 120.0


@dataclass(frozen=True)
class Item:
    """One request of a batch: its id in the batch and the body the adapter sends alone."""

    custom_id: str
    body: Mapping[str, object]


@dataclass(frozen=True)
class ItemResult:
    """What a batch gave one item: the reply's JSON, or why there is none (`retry`: the item may go in
    another batch; False where the batch itself may still be running and a resubmission would pay twice)."""

    data: object = None
    error: str | None = None
    retry: bool = True


@dataclass(frozen=True)
class BatchState:
    """A batch as the provider reports it: ended or not, its items done and failed so far, and the
    provider's latest end (its `expires_at`) where it gives one."""

    ended: bool
    done: int
    failed: int
    ends_by: str | None = None


class BatchWire(Protocol):
    """A provider's batch API (adapters/batch_anthropic.py, batch_openai.py)."""

    provider: str

    async def submit(self, items: Sequence[Item]) -> str: ...
    async def state(self, batch_id: str) -> BatchState: ...
    async def results(self, batch_id: str) -> dict[str, ItemResult]: ...


class BatchCapable(Protocol):
    """An adapter with a batch API: the body it would send, how it reads a reply, and its wire."""

    label: str

    def batch_body(self, prompt: str, ctx: CallContext) -> dict[str, object]: ...
    def read(self, data: object) -> Answer: ...
    def batch_wire(self) -> BatchWire: ...


@dataclass(frozen=True)
class Submitted:
    """A journal entry: which model's batch, at which provider, under which id, holding which items."""

    model: str
    provider: str
    batch_id: str
    items: tuple[str, ...]


class Journal(Protocol):
    """Where submitted batches are kept (results/batch_journal.py: the run folder's batches.json)."""

    def submitted(self) -> Sequence[Submitted]: ...
    def add(self, entry: Submitted) -> None: ...


@dataclass(frozen=True)
class BatchProgress:
    """One progress report of a batch, for the progress line (reports/batch.py words it)."""

    model: str
    batch_id: str
    submitted: int
    done: int
    failed: int
    ended: bool
    ends_by: str | None = None
    resumed: bool = False  # a batch of an earlier, interrupted run, fetched rather than submitted


@dataclass(frozen=True)
class Timing:
    """How long a batcher waits: for calls to stop joining before it submits, and between polls (the
    first interval, growing by half each poll up to `max_poll_seconds`)."""

    poll_seconds: float = 30.0
    settle_seconds: float = 1.0
    max_poll_seconds: float = 300.0

    @classmethod
    def polling(cls, seconds: float) -> Timing:
        return cls(seconds, min(1.0, seconds), max(seconds, min(300.0, seconds * 10)))


def body_digest(body: Mapping[str, object]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:40]


@dataclass
class _Waiting:
    item: Item
    future: asyncio.Future[ItemResult]


@dataclass
class Batcher:
    """A model's adapter in batch mode. `waits_in_batch` tells the engine the call takes no slot of
    the concurrency limit and no per-call timeout: it waits for its batch (engine/runner.py)."""

    label: str
    inner: BatchCapable
    wire: BatchWire
    journal: Journal
    tell: Callable[[BatchProgress], None]
    timing: Timing = field(default_factory=Timing)
    waits_in_batch: bool = True
    _pending: list[_Waiting] = field(default_factory=list)
    _seen: Counter[str] = field(default_factory=Counter)
    _collector: asyncio.Task[None] | None = None
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    _submissions: set[asyncio.Task[str]] = field(default_factory=set)
    _fetched: dict[str, asyncio.Task[dict[str, ItemResult]]] = field(default_factory=dict)
    _known: dict[str, Submitted] = field(default_factory=dict)
    submitted_items: int = 0  # items this batcher put in a batch it submitted (tests and the summary line)

    def __post_init__(self) -> None:
        for entry in self.journal.submitted():
            if entry.model == self.label:
                self._known.update((cid, entry) for cid in entry.items)

    async def preflight(self) -> None:
        return None  # the inner adapter was preflighted when it was built

    def describe(self) -> Mapping[str, object]:
        return self.inner.describe()  # type: ignore[attr-defined, no-any-return]

    async def choose(self, query: str, offered: Sequence[Any], ctx: CallContext) -> Any:
        return await self.inner.choose(query, offered, ctx)  # type: ignore[attr-defined]  # trigger calls: one by one

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        body = self.inner.batch_body(prompt, ctx)
        digest = body_digest(body)
        # Calls with the same body are the same request: the n-th of them is item n, in this run and
        # in a resumed one, whichever of them asks first.
        n = self._seen[digest]
        self._seen[digest] += 1
        for attempt in range(1, ATTEMPTS + 1):
            result = await self._result(Item(f"{digest}-{n}-{attempt}", body))
            if result.error is None:
                return self.inner.read(result.data)
            if not result.retry or attempt == ATTEMPTS:
                tries = f" (in {attempt} batches)" if attempt > 1 else ""
                raise CallError(f"{self.wire.provider} batch: {result.error}{tries}")
        raise AssertionError("unreachable")  # pragma: no cover

    async def _result(self, item: Item) -> ItemResult:
        entry = self._known.get(item.custom_id)
        if entry is not None:  # journaled by an earlier run: fetched, never submitted again
            task = self._fetched.get(entry.batch_id)
            if task is None:
                task = asyncio.create_task(self._fetch(entry.batch_id, len(entry.items), resumed=True))
                self._fetched[entry.batch_id] = task
            results = await asyncio.shield(task)
            return results.get(item.custom_id, ItemResult(None, f"not in the results of batch {entry.batch_id}"))
        waiting = _Waiting(item, asyncio.get_running_loop().create_future())
        self._pending.append(waiting)
        if self._collector is None or self._collector.done():
            self._collector = asyncio.create_task(self._collect())
        return await waiting.future

    async def _collect(self) -> None:
        """Submit what waits once no call has joined for settle_seconds; again while calls come."""
        while self._pending:
            count = -1
            while count != len(self._pending):
                count = len(self._pending)
                await asyncio.sleep(self.timing.settle_seconds)
            # the calls given up meanwhile (an interrupted run) are not sent
            waiting, self._pending = [w for w in self._pending if not w.future.done()], []
            if not waiting:
                continue
            task = asyncio.create_task(self._batch(waiting))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _batch(self, waiting: Sequence[_Waiting]) -> None:
        items = [w.item for w in waiting]
        submit = asyncio.create_task(self._submit(items))
        self._submissions.add(submit)
        submit.add_done_callback(self._submissions.discard)
        try:
            batch_id = await submit
        except Exception as e:  # nothing was accepted: the items may go in the next batch
            _settle(waiting, {}, ItemResult(None, f"the batch was not submitted: {e or type(e).__name__}"))
            return
        try:
            results = await self._fetch(batch_id, len(items))
        except Exception as e:  # the batch may still run: never submitted again
            _settle(waiting, {}, ItemResult(None, f"batch {batch_id}: {e or type(e).__name__}", retry=False))
            return
        _settle(waiting, results, ItemResult(None, f"not in the results of batch {batch_id}"))

    async def _submit(self, items: Sequence[Item]) -> str:
        """Submit and journal at once: an accepted batch is in the journal before anything else runs."""
        batch_id = await self.wire.submit(items)
        self.submitted_items += len(items)
        self.journal.add(Submitted(self.label, self.wire.provider, batch_id, tuple(i.custom_id for i in items)))
        return batch_id

    async def drain(self, seconds: float) -> None:
        """On the way out of an interrupted run: let a submission in flight be answered and journaled
        (at most `seconds`), so the batch it made is fetched on resume, not paid for again."""
        if self._submissions:
            await asyncio.wait(set(self._submissions), timeout=seconds)

    async def _fetch(self, batch_id: str, total: int, *, resumed: bool = False) -> dict[str, ItemResult]:
        """Poll until the batch has ended (telling each change), then its items' results."""
        wait = self.timing.poll_seconds
        last: BatchState | None = None
        while True:
            state = await self.wire.state(batch_id)
            if state != last:
                self.tell(BatchProgress(self.label, batch_id, total, state.done, state.failed, state.ended,
                                        state.ends_by, resumed))  # fmt: skip
                last = state
            if state.ended:
                return await self.wire.results(batch_id)
            await asyncio.sleep(wait)
            wait = min(wait * 1.5, self.timing.max_poll_seconds)


def _settle(waiting: Sequence[_Waiting], results: Mapping[str, ItemResult], missing: ItemResult) -> None:
    for w in waiting:
        if not w.future.done():
            w.future.set_result(results.get(w.item.custom_id, missing))


# --- the batch endpoints' HTTP, shared by both wires ------------------------------------------------


async def send(adapter: HttpAdapter, method: str, url: str, headers: Mapping[str, str], **kw: Any) -> httpx.Response:
    """One request to a batch endpoint: retried on 429, 5xx and no answer (HTTP_TRIES in all); any
    other 4xx, or the last failure, is a CallError naming the URL."""
    import httpx

    from skill_be.adapters.http_common import error_message

    why = ""
    for attempt in range(HTTP_TRIES):
        if attempt:
            await asyncio.sleep(min(2.0**attempt, 8.0) * random.uniform(0.8, 1.2))
        try:
            response = await adapter._client().request(method, url, headers=dict(headers), timeout=HTTP_TIMEOUT, **kw)
        except httpx.HTTPError as e:
            why = f"{type(e).__name__}: {e or 'request failed'}"
            continue
        status = response.status_code
        if status == 429 or status >= 500:
            why = f"HTTP {status}: {error_message(response)}"
            continue
        if status >= 400:
            raise adapter.error(f"HTTP {status}: {error_message(response)} ({url})")
        return response
    raise adapter.error(f"{why} (after {HTTP_TRIES} tries; {url})")


def json_of(adapter: HttpAdapter, response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise adapter.error(f"the batch endpoint's answer is not a JSON object ({response.url})")
    return data


def jsonl(text: str) -> list[dict[str, Any]]:
    """The lines of a results file that are JSON objects."""
    rows: list[dict[str, Any]] = []
    for line in text.splitlines():
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
    return rows
