"""An HTTP adapter keeps its connections between calls (adapters/http_common.py): a run pays one
TCP (and, against a real API, TLS) handshake per connection, not one per call. A small HTTP/1.1
server on 127.0.0.1 counts the connections it accepts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from skill_be.adapters.base import AdapterEnv, CallContext
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterRegistry
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where

ANSWER = {"choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}], "usage": {}}


class CountingServer:
    def __init__(self) -> None:
        self.connections = 0
        self.requests = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")), 0
                )
                await reader.readexactly(length)
                self.requests += 1
                body = json.dumps(ANSWER).encode()
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
                writer.write(b"content-length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def adapter(base_url: str, tmp_path: Path) -> object:
    settings = {"adapter": "openai", "id": "m", "baseUrl": base_url, "apiKeyEnv": "TEST_KEY"}
    entry = AdapterEntry(adapter="openai", id="m", settings=settings, where=Where("skill-be.yaml", "model"))
    env = AdapterEnv(root=tmp_path, environ={"TEST_KEY": "k"}, redactor=Redactor(), label="m")
    return AdapterRegistry().create(entry, env)


def test_calls_share_a_connection_until_the_adapter_closes(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, int]:
        counting = CountingServer()
        server = await asyncio.start_server(counting.handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        a = adapter(f"http://127.0.0.1:{port}/v1", tmp_path)
        ctx = CallContext(timeout_seconds=30, cwd=tmp_path)
        for _ in range(5):
            assert (await a.complete("Say hello.", ctx)).text == "hello"  # type: ignore[attr-defined]
        kept = counting.connections
        await a.aclose()  # type: ignore[attr-defined]
        # the control: after the close, the next call needs a new connection
        await a.complete("Say hello.", ctx)  # type: ignore[attr-defined]
        await a.aclose()  # type: ignore[attr-defined]
        server.close()
        await server.wait_closed()
        return kept, counting.connections, counting.requests

    kept, after_close, requests = asyncio.run(scenario())
    assert (kept, after_close, requests) == (1, 2, 6)
