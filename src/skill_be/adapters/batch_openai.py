"""OpenAI's Batch API for batch mode (adapters/batch.py): the items as a JSON-lines file
(`POST /files`, purpose `batch`; each line `custom_id`, `method`, `url` and the Chat Completions
body), `POST /batches` on that file, `GET /batches/{id}` until its status is final, then the
output file's lines (`response.status_code`, `response.body`) and the error file's."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from skill_be.adapters.batch import BatchState, Item, ItemResult, json_of, jsonl, send

if TYPE_CHECKING:
    from skill_be.adapters.http_common import HttpAdapter

ENDED = ("completed", "failed", "expired", "cancelled")
WINDOW = "24h"  # the only completion window the Batch API takes


class OpenAIBatches:
    provider = "openai"

    def __init__(self, adapter: HttpAdapter, headers: Callable[[], dict[str, str]]) -> None:
        self.adapter = adapter
        self.headers = headers
        self.endpoint = urlsplit(adapter.base_url).path.rstrip("/") + "/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {k: v for k, v in self.headers().items() if k != "content-type"}  # a file upload is multipart

    async def submit(self, items: Sequence[Item]) -> str:
        a = self.adapter
        lines = "".join(
            json.dumps({"custom_id": i.custom_id, "method": "POST", "url": self.endpoint, "body": dict(i.body)},
                       ensure_ascii=False) + "\n"
            for i in items
        )  # fmt: skip
        files = {"file": ("skill-be-batch.jsonl", lines.encode(), "application/jsonl")}
        upload = json_of(a, await send(a, "POST", a.base_url + "/files", self._headers(), data={"purpose": "batch"},
                                       files=files))  # fmt: skip
        body = {"input_file_id": upload.get("id"), "endpoint": self.endpoint, "completion_window": WINDOW}
        headers = {**self._headers(), "content-type": "application/json"}
        data = json_of(a, await send(a, "POST", a.base_url + "/batches", headers, json=body))
        if not isinstance(data.get("id"), str):
            raise a.error(f"the new batch has no id ({a.base_url}/batches)")
        return str(data["id"])

    async def state(self, batch_id: str) -> BatchState:
        data = await self._batch(batch_id)
        counts = data.get("request_counts") if isinstance(data.get("request_counts"), dict) else {}
        assert isinstance(counts, dict)
        ends = data.get("expires_at")
        return BatchState(
            data.get("status") in ENDED,
            int(counts.get("completed") or 0),
            int(counts.get("failed") or 0),
            str(ends) if ends else None,
        )

    async def results(self, batch_id: str) -> dict[str, ItemResult]:
        data = await self._batch(batch_id)
        out: dict[str, ItemResult] = {}
        for key in ("error_file_id", "output_file_id"):
            file_id = data.get(key)
            if isinstance(file_id, str) and file_id:
                url = f"{self.adapter.base_url}/files/{file_id}/content"
                response = await send(self.adapter, "GET", url, self._headers())
                out.update((str(row.get("custom_id")), item_result(row)) for row in jsonl(response.text))
        if not out and data.get("status") != "completed":
            why = data.get("errors") or data.get("status")
            return {"": ItemResult(None, f"the batch {data.get('status')}: {why}")}
        return out

    async def _batch(self, batch_id: str) -> dict[str, Any]:
        url = f"{self.adapter.base_url}/batches/{batch_id}"
        return json_of(self.adapter, await send(self.adapter, "GET", url, self._headers()))


def item_result(row: dict[str, Any]) -> ItemResult:
    response = row.get("response")
    error = row.get("error")
    if isinstance(response, dict) and response.get("status_code") == 200 and not error:
        return ItemResult(response.get("body"))
    if isinstance(error, dict):
        return ItemResult(None, f"{error.get('code') or 'error'}: {error.get('message') or ''}".rstrip(": "))
    body = response.get("body") if isinstance(response, dict) else None
    err = body.get("error") if isinstance(body, dict) else None
    message = err.get("message") if isinstance(err, dict) else None
    status = response.get("status_code") if isinstance(response, dict) else None
    return ItemResult(None, f"HTTP {status}: {message or 'failed'}")
