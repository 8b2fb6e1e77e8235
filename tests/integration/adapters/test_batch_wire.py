"""The anthropic and openai adapters' batch wires (adapters/batch_anthropic.py, batch_openai.py)
against the scripted batch server on 127.0.0.1 (tests/support/batch_server.py): what each sends to
create a batch (the bodies as `complete` sends them, the key, the endpoint), how it polls, and how
each kind of item result reads: succeeded, failed (errored, a non-200 response) and expired."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.batch_server import ANSWER, BatchServer

from skill_be.adapters.base import AdapterEnv, CallContext, CallError
from skill_be.adapters.batch import Item
from skill_be.adapters.registry import AdapterRegistry
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where

KEY = "sk-wire-test-5678"
CTX = CallContext(30, Path("."))


@pytest.fixture
def server() -> Iterator[BatchServer]:
    s = BatchServer(polls=1)
    yield s
    s.stop()


def adapter(wire: str, server: BatchServer) -> Any:
    base = server.base_url + ("" if wire == "anthropic" else "/v1")
    settings = {"adapter": wire, "id": "claude-x" if wire == "anthropic" else "gpt-x", "baseUrl": base,
                "apiKeyEnv": "WIRE_KEY", "maxTokens": 300}  # fmt: skip
    entry = AdapterEntry(wire, settings["id"], settings, Where("skill-be.yaml").key("model"))
    return AdapterRegistry().create(entry, AdapterEnv(Path("."), {"WIRE_KEY": KEY}))


async def batch_of(a: Any, items: list[Item]) -> tuple[str, list[Any], dict[str, Any]]:
    wire = a.batch_wire()
    bid = await wire.submit(items)
    states = [await wire.state(bid)]
    while not states[-1].ended:
        states.append(await wire.state(bid))
    return bid, states, await wire.results(bid)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_batch_is_created_polled_and_read_item_by_item(server: BatchServer, wire: str) -> None:
    a = adapter(wire, server)
    prompts = ["Split bill number 1.", "Split bill number 2.", "Split bill number 3. LIBRARY DOCS"]
    items = [Item(f"id{i}-0-1", a.batch_body(p, CTX)) for i, p in enumerate(prompts)]
    server.fail = {"number 1": "errored", "number 2": "expired"}
    _, states, results = asyncio.run(batch_of(a, items))
    # the items are the bodies complete() sends, under their ids
    (batch,) = server.batches.values()
    assert [(cid, body) for cid, body in batch["items"]] == [(i.custom_id, dict(i.body)) for i in items]
    asyncio.run(a.complete(prompts[0], CTX))
    assert server.one_by_one[-1] == items[0].body
    # every request carries the key; polled until ended, with the provider's expiry
    batch_requests = [h for _, path, h in server.seen if "batches" in path or "files" in path]
    header = "x-api-key" if wire == "anthropic" else "authorization"
    assert batch_requests and all(KEY in h.get(header, "") for h in batch_requests)
    assert [s.ended for s in states] == [False, True] and states[0].ends_by
    assert (states[-1].done, states[-1].failed) == (1, 2)
    errored, expired, ok = (results[i.custom_id] for i in items)
    assert ok.error is None and a.read(ok.data).text == ANSWER
    assert errored.data is None and errored.retry and "scripted failure" in str(errored.error)
    assert expired.data is None and expired.retry and "expired" in str(expired.error)
    assert set(results) == {i.custom_id for i in items}


def test_control_the_server_refuses_a_batch_on_another_endpoint(server: BatchServer) -> None:
    a = adapter("openai", server)
    wire = a.batch_wire()
    wire.endpoint = "/v1/responses"
    with pytest.raises(CallError, match=r"HTTP 400: .*/v1/responses"):
        asyncio.run(wire.submit([Item("x-0-1", a.batch_body("Hi.", CTX))]))
    assert not server.batches
