"""Anthropic's Message Batches API for batch mode (adapters/batch.py): `POST /v1/messages/batches`
with each item's Messages body as its `params`, `GET /v1/messages/batches/{id}` until its
`processing_status` is `ended`, then the `results_url` JSON lines (`custom_id`, `result.type`:
succeeded, errored, canceled or expired)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from skill_be.adapters.batch import BatchState, Item, ItemResult, json_of, jsonl, send

if TYPE_CHECKING:
    from skill_be.adapters.http_common import HttpAdapter


class AnthropicBatches:
    provider = "anthropic"

    def __init__(self, adapter: HttpAdapter, headers: Callable[[], dict[str, str]]) -> None:
        self.adapter = adapter
        self.headers = headers
        self.url = adapter.base_url + "/v1/messages/batches"

    async def submit(self, items: Sequence[Item]) -> str:
        requests = [{"custom_id": i.custom_id, "params": dict(i.body)} for i in items]
        response = await send(self.adapter, "POST", self.url, self.headers(), json={"requests": requests})
        data = json_of(self.adapter, response)
        if not isinstance(data.get("id"), str):
            raise self.adapter.error(f"the new batch has no id ({self.url})")
        return str(data["id"])

    async def state(self, batch_id: str) -> BatchState:
        data = await self._batch(batch_id)
        counts = data.get("request_counts") if isinstance(data.get("request_counts"), dict) else {}
        assert isinstance(counts, dict)
        failed = sum(int(counts.get(k) or 0) for k in ("errored", "canceled", "expired"))
        ends = data.get("expires_at")
        return BatchState(
            data.get("processing_status") == "ended",
            int(counts.get("succeeded") or 0),
            failed,
            str(ends) if ends else None,
        )

    async def results(self, batch_id: str) -> dict[str, ItemResult]:
        data = await self._batch(batch_id)
        url = data.get("results_url")
        if not isinstance(url, str) or not url:
            raise self.adapter.error(f"batch {batch_id} has ended without a results_url")
        response = await send(self.adapter, "GET", url, self.headers())
        return {str(row.get("custom_id")): item_result(row.get("result")) for row in jsonl(response.text)}

    async def _batch(self, batch_id: str) -> dict[str, Any]:
        return json_of(self.adapter, await send(self.adapter, "GET", f"{self.url}/{batch_id}", self.headers()))


def item_result(result: object) -> ItemResult:
    if not isinstance(result, dict):
        return ItemResult(None, "the batch gave no result")
    kind = result.get("type")
    if kind == "succeeded":
        return ItemResult(result.get("message"))
    if kind == "errored":
        error = result.get("error")
        inner = error.get("error") if isinstance(error, dict) else None
        message = inner.get("message") if isinstance(inner, dict) else None
        return ItemResult(None, f"errored: {message or error}")
    return ItemResult(None, str(kind or "no result type"))
