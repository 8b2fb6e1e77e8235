"""A mock model server for the adapter tests: the Anthropic Messages API, the OpenAI Chat Completions
API, the OpenAI Responses API (`POST .../responses`, what Codex CLI speaks), streamed (SSE) and not,
and the Gemini API's streamed call (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, what
Gemini CLI speaks: the gemini_* functions), on 127.0.0.1, logging every request.

Run as a program so it can live inside a network namespace with the CLI under test:

    python mock_model_server.py --control /tmp/x.sock [--lo-up]

It prints the TCP port on its first stdout line once both listeners are up. The test steers it and
reads its request log through the unix socket `--control` (a unix socket works across network
namespaces; TCP on 127.0.0.1 inside the namespace does not reach the test's own loopback).

Control endpoints (JSON):
  POST /__mock/script    {"default": ACTION, "queue": [ACTION, ...]}: model calls take queued actions
                         first, then the default
  GET  /__mock/requests  every request so far: [{"method", "path", "headers", "body"}]
  POST /__mock/reset     forget the log

An ACTION is {"kind": "text", "text": "...", "input_tokens": 11, "output_tokens": 7}
            | {"kind": "status", "status": 500, "headers": {"retry-after": "1"}, "echo_key": false}
            | {"kind": "hang"}            (headers never come; the connection stays open)
            | {"kind": "malformed"}       (200 with a body that is not what the API returns)
            | {"kind": "tools", "rules": [RULE, ...], "text": "..."}   (trigger evals, not streamed)
Any ACTION may carry "delay": seconds to wait before answering.

A "tools" action reads the request's offered tools and its last user message: the first RULE that
matches decides the reply. RULE = {"when": "word" (the message contains it; absent: always),
"call": "<tool name>" (a tool call, when that tool is offered; null: no call), "say": "text"}.
No rule matches: a text reply without a call. A request without tools gets "text" back.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_TEXT = "MOCK-ANSWER: the mock model says hello"


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.default: dict[str, Any] = {"kind": "text", "text": DEFAULT_TEXT}
        self.queue: list[dict[str, Any]] = []
        self.closing = threading.Event()

    def next_action(self) -> dict[str, Any]:
        with self.lock:
            return self.queue.pop(0) if self.queue else dict(self.default)


GEMINI_PATHS = (":streamGenerateContent",)  # the Gemini API's model calls (Gemini CLI streams)


def is_model_call(method: str, path: str) -> bool:
    p = path.split("?", 1)[0].rstrip("/")
    return method == "POST" and (p.endswith(("/messages", "/chat/completions", "/responses", *GEMINI_PATHS)))


def wire_of(path: str) -> str:
    """The wire format a model call's path speaks: "anthropic", "openai" (chat completions), "responses"
    or "gemini" (`/v1beta/models/<model>:streamGenerateContent`)."""
    p = path.split("?", 1)[0].rstrip("/")
    if p.endswith(GEMINI_PATHS):
        return "gemini"
    return "anthropic" if p.endswith("/messages") else "responses" if p.endswith("/responses") else "openai"


def responses_usage(tin: int, tout: int, cached: int = 0) -> dict[str, Any]:
    return {"input_tokens": tin, "input_tokens_details": {"cached_tokens": cached}, "output_tokens": tout,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": tin + tout}  # fmt: skip


def responses_events(model: str, items: list[dict[str, Any]], usage: dict[str, Any]) -> list[tuple[str | None, object]]:
    """The Responses API's SSE events for a reply made of `items` (each a `message` with one output_text
    part or a `function_call`), ending with `response.completed` and its usage."""
    rid = "resp_" + uuid.uuid4().hex[:20]
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model, "status": "in_progress",
            "output": []}  # fmt: skip
    events: list[tuple[str | None, object]] = [("response.created", {"type": "response.created", "response": base})]
    for i, item in enumerate(items):
        events.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": i,
                                                      "item": {**item, "status": "in_progress"}}))  # fmt: skip
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                          "output_index": i, "content_index": 0, "delta": text}))  # fmt: skip
        events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": i,
                                                     "item": {**item, "status": "completed"}}))  # fmt: skip
    done = {**base, "status": "completed", "output": items, "usage": usage}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return events


def responses_message(text: str) -> dict[str, Any]:
    return {"type": "message", "id": "msg_" + uuid.uuid4().hex[:20], "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip


def responses_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20], "call_id": "call_" + uuid.uuid4().hex[:20],
            "name": name, "arguments": json.dumps(arguments)}  # fmt: skip


# -- the Gemini API (what Gemini CLI speaks) ---------------------------------------------------------
def gemini_model(path: str) -> str:
    """The model a Gemini call names in its path: `/v1beta/models/<model>:streamGenerateContent`."""
    return path.split("?", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]


def gemini_usage(tin: int, tout: int, cached: int = 0) -> dict[str, Any]:
    usage = {"promptTokenCount": tin, "candidatesTokenCount": tout, "totalTokenCount": tin + tout}
    return {**usage, "cachedContentTokenCount": cached} if cached else usage


def gemini_call_part(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


def gemini_chunks(model: str, parts: list[dict[str, Any]], usage: dict[str, Any]) -> list[tuple[str | None, object]]:
    """The SSE events (`alt=sse`) of a streamed reply made of `parts` (text and functionCall parts): the
    text split over two chunks, the last chunk with finishReason STOP and the usage."""
    rid = "resp-" + uuid.uuid4().hex[:16]
    chunks: list[list[dict[str, Any]]] = []
    for part in parts:
        if "text" in part and len(part["text"]) > 1:
            half = len(part["text"]) // 2
            chunks += [[{"text": part["text"][:half]}], [{"text": part["text"][half:]}]]
        else:
            chunks.append([part])
    chunks = chunks or [[{"text": ""}]]
    out: list[tuple[str | None, object]] = []
    for i, c in enumerate(chunks):
        cand: dict[str, Any] = {"content": {"role": "model", "parts": c}, "index": 0}
        last = i == len(chunks) - 1
        if last:
            cand["finishReason"] = "STOP"
        data: dict[str, Any] = {"candidates": [cand], "modelVersion": model, "responseId": rid}
        if last:
            data["usageMetadata"] = usage
        out.append((None, data))
    return out


def gemini_tools(req: dict[str, Any]) -> list[dict[str, Any]]:
    """The function declarations a Gemini request offers (all `tools[].functionDeclarations`)."""
    return [f for t in req.get("tools") or () if isinstance(t, dict) for f in t.get("functionDeclarations") or ()
            if isinstance(f, dict)]  # fmt: skip


def gemini_user_text(req: dict[str, Any]) -> str:
    """The text of the last user content that holds text (not only functionResponse parts)."""
    for c in reversed(req.get("contents") or []):
        if isinstance(c, dict) and c.get("role") == "user":
            texts = [str(p["text"]) for p in c.get("parts") or () if isinstance(p, dict) and "text" in p]
            if texts:
                return "\n".join(texts)
    return ""


def gemini_error(status: int, message: str) -> dict[str, Any]:
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED"}
    return {"error": {"code": status, "message": message, "status": names.get(status, "INTERNAL")}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any  # carries .state

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the log is the JSON list
        return

    # -- plumbing ---------------------------------------------------------------------------
    def _body(self) -> bytes:
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n) if n else b""

    def _send(self, status: int, body: bytes, ctype: str = "application/json", extra: dict[str, str] | None = None):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: object, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), extra=extra)

    def _sse(self, events: list[tuple[str | None, object]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, data in events:
            chunk = (
                (f"event: {name}\n" if name else "")
                + "data: "
                + (data if isinstance(data, str) else json.dumps(data))
                + "\n\n"
            )
            self.wfile.write(chunk.encode())
            self.wfile.flush()
        self.close_connection = True

    def _handle(self) -> None:
        state: State = self.server.state
        body = self._body()
        path = self.path
        if path.startswith("/__mock/"):
            return self._control(state, path, body)
        record = {
            "method": self.command,
            "path": path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", errors="replace"),
            "time": time.time(),
        }
        with state.lock:
            state.requests.append(record)
        if not is_model_call(self.command, path):
            # HEAD /, GET /v1/models and the like: a plain, empty success.
            return self._json(200, {"data": [], "object": "list"} if self.command == "GET" else {})
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            return self._json(400, {"error": {"type": "invalid_request_error", "message": "body is not JSON"}})
        action = state.next_action()
        kind = action.get("kind", "text")
        wire = wire_of(path)
        anthropic = wire == "anthropic"
        if action.get("delay"):
            time.sleep(float(action["delay"]))
        if kind == "tools":
            if req.get("tools"):
                if wire == "gemini":
                    return self._gemini_tool_reply(req, action)
                if wire == "responses":
                    return self._responses_tool_reply(req, action)
                return self._tool_reply(req, action, anthropic)
            kind, action = "text", {"kind": "text", "text": action.get("text", DEFAULT_TEXT)}
        if kind == "hang":
            # Hold the connection without a byte until the client gives up or the server stops.
            while not state.closing.wait(0.2):
                try:
                    self.connection.setblocking(False)
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return
                except BlockingIOError:
                    pass
                except OSError:
                    return
                finally:
                    with contextlib.suppress(OSError):
                        self.connection.setblocking(True)
            return
        if kind == "status":
            status = int(action.get("status", 500))
            err_type = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
            message = f"mock error {status}"
            if action.get("echo_key"):  # a careless server that quotes the key back
                message += " key=" + (self.headers.get("x-api-key") or self.headers.get("authorization")
                                      or self.headers.get("x-goog-api-key") or "")  # fmt: skip
            data = {"type": "error", "error": {"type": err_type, "message": message}}
            if wire == "gemini":
                data = gemini_error(status, message)
            elif not anthropic:
                data = {"error": {"message": message, "type": err_type, "code": status}}
            return self._json(status, data, extra=dict(action.get("headers") or {}))
        if kind == "malformed":
            if req.get("stream") or wire == "gemini":
                return self._sse([(None, "{this is not json")])
            return self._send(200, b"{this is not json", extra={})
        text = str(action.get("text", DEFAULT_TEXT))
        tin, tout = int(action.get("input_tokens", 11)), int(action.get("output_tokens", 7))
        model = str(req.get("model", "mock"))
        if anthropic:
            return self._anthropic(req, model, text, tin, tout)
        if wire == "responses":
            return self._responses(req, model, text, tin, tout)
        if wire == "gemini":
            return self._gemini(req, gemini_model(path), text, tin, tout)
        return self._openai(req, model, text, tin, tout)

    def _gemini(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        """A text answer over the Gemini API, streamed (`:streamGenerateContent?alt=sse`)."""
        self._sse(gemini_chunks(model, [{"text": text}], gemini_usage(tin, tout)))

    def _gemini_tool_reply(self, req: dict[str, Any], action: dict[str, Any]) -> None:
        """Trigger evals over the Gemini API: a functionCall part for an offered declaration, by the rules."""
        names = [f.get("name") for f in gemini_tools(req)]
        said = gemini_user_text(req)
        rule = next((r for r in action.get("rules") or () if not r.get("when") or r["when"] in said), {})
        call = rule.get("call") if rule.get("call") in names else None
        say = str(rule.get("say", "" if call else "I can answer that directly."))
        parts = ([{"text": say}] if say else []) + ([gemini_call_part(call, {})] if call else [])
        self._sse(gemini_chunks(gemini_model(self.path), parts, gemini_usage(50, 9)))

    def _responses(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        """A text answer in the OpenAI Responses format, streamed (SSE) or as one JSON object."""
        events = responses_events(model, [responses_message(text)], responses_usage(tin, tout))
        if not req.get("stream"):
            done = events[-1][1]
            assert isinstance(done, dict)
            return self._json(200, done["response"])
        self._sse(events)

    def _responses_tool_reply(self, req: dict[str, Any], action: dict[str, Any]) -> None:
        """Trigger evals over the Responses API: a `function_call` item for an offered tool, by the rules."""
        names = [t.get("name") for t in req.get("tools") or () if isinstance(t, dict)]
        last = next(
            (i for i in reversed(req.get("input") or []) if isinstance(i, dict) and i.get("role") == "user"), {}
        )
        content = last.get("content")
        if isinstance(content, list):
            content = " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
        rule = next((r for r in action.get("rules") or () if not r.get("when") or r["when"] in str(content)), {})
        call = rule.get("call") if rule.get("call") in names else None
        say = str(rule.get("say", "" if call else "I can answer that directly."))
        items = ([responses_message(say)] if say else []) + ([responses_call(call, {})] if call else [])
        events = responses_events(str(req.get("model", "mock")), items, responses_usage(50, 9))
        if not req.get("stream"):
            done = events[-1][1]
            assert isinstance(done, dict)
            return self._json(200, done["response"])
        self._sse(events)

    def _tool_reply(self, req: dict[str, Any], action: dict[str, Any], anthropic: bool) -> None:
        """Trigger evals: call one of the offered tools, or none, by the action's rules."""
        names = [t.get("name") or (t.get("function") or {}).get("name") for t in req.get("tools") or ()]
        content = next((m.get("content") for m in reversed(req.get("messages") or ()) if m.get("role") == "user"), "")
        if isinstance(content, list):
            content = " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
        rule = next((r for r in action.get("rules") or () if not r.get("when") or r["when"] in str(content)), {})
        call = rule.get("call") if rule.get("call") in names else None
        say = str(rule.get("say", "" if call else "I can answer that directly."))
        model = str(req.get("model", "mock"))
        if anthropic:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": say}] if say else []
            if call:
                blocks.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:16], "name": call, "input": {}})
            return self._json(200, {
                "id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": "tool_use" if call else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 50, "output_tokens": 9},
            })  # fmt: skip
        message: dict[str, Any] = {"role": "assistant", "content": say or None}
        if call:
            message["tool_calls"] = [{"id": "call_" + uuid.uuid4().hex[:16], "type": "function",
                                      "function": {"name": call, "arguments": "{}"}}]  # fmt: skip
        return self._json(200, {
            "id": "chatcmpl-" + uuid.uuid4().hex[:20], "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message,
                                         "finish_reason": "tool_calls" if call else "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59},
        })  # fmt: skip

    def _anthropic(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        mid = "msg_" + uuid.uuid4().hex[:20]
        if not req.get("stream"):
            return self._json(
                200,
                {
                    "id": mid, "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": tin, "output_tokens": tout},
                },
            )  # fmt: skip
        half = len(text) // 2
        self._sse(
            [
                ("message_start", {"type": "message_start", "message": {
                    "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
                    "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": tin, "output_tokens": 1}}}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}}),
                ("ping", {"type": "ping"}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": text[:half]}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": text[half:]}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                   "usage": {"output_tokens": tout}}),
                ("message_stop", {"type": "message_stop"}),
            ]
        )  # fmt: skip

    def _openai(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        cid = "chatcmpl-" + uuid.uuid4().hex[:20]
        created = int(time.time())
        usage = {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}
        if not req.get("stream"):
            return self._json(
                200,
                {
                    "id": cid, "object": "chat.completion", "created": created, "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": usage,
                },
            )  # fmt: skip

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }  # fmt: skip

        half = len(text) // 2
        events: list[tuple[str | None, object]] = [
            (None, chunk({"role": "assistant", "content": ""}, None)),
            (None, chunk({"content": text[:half]}, None)),
            (None, chunk({"content": text[half:]}, None)),
            (None, chunk({}, "stop")),
        ]
        if (req.get("stream_options") or {}).get("include_usage"):
            events.append((None, {**chunk({}, None), "choices": [], "usage": usage}))
        else:
            # Many servers put usage on the last chunk anyway; clients take it from either.
            events[-1] = (None, {**chunk({}, "stop"), "usage": usage})
        events.append((None, "[DONE]"))
        self._sse(events)

    def _control(self, state: State, path: str, body: bytes) -> None:
        if path == "/__mock/requests":
            with state.lock:
                return self._json(200, list(state.requests))
        if path == "/__mock/reset":
            with state.lock:
                state.requests.clear()
                state.queue.clear()
            return self._json(200, {})
        if path == "/__mock/script":
            data = json.loads(body or b"{}")
            with state.lock:
                if "default" in data:
                    state.default = dict(data["default"])
                state.queue = [dict(a) for a in data.get("queue", [])]
            return self._json(200, {})
        return self._json(404, {"error": "unknown control path"})

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_OPTIONS = _handle


class TCPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        # Headers and body go out in separate writes: without this, a kept-alive connection waits
        # ~40 ms per response on Nagle and delayed ACKs, which would swamp the benchmark.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, addr


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, _ = super().get_request()
        return sock, ("unix", 0)  # BaseHTTPRequestHandler wants a (host, port) pair


def loopback_up() -> None:
    """Bring `lo` up: a fresh network namespace (unshare -n) starts with it down."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s.fileno(), siocgifflags, req))[1]
        fcntl.ioctl(s.fileno(), siocsifflags, struct.pack("16sH14x", b"lo", flags | iff_up))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--control", required=True, help="unix socket path for the test's control requests")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--lo-up", action="store_true", help="bring the loopback interface up first")
    args = ap.parse_args(argv)
    if args.lo_up:
        loopback_up()
    state = State()
    tcp = TCPServer(("127.0.0.1", args.port), Handler)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(args.control)
    unix = UnixServer(args.control, Handler)
    for srv in (tcp, unix):
        srv.state = state  # type: ignore[attr-defined]
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    print(tcp.server_address[1], flush=True)
    # Stop when the parent closes our stdin (the test ends), or on SIGTERM.
    try:
        sys.stdin.read()
    finally:
        state.closing.set()
        tcp.shutdown()
        unix.shutdown()
    return 0


class MockServer:
    """The test's handle on a mock server process; with `netns`, it runs in a network namespace that has
    only loopback (unshare -n, needs root), and `wrap` makes a CLI run inside the same namespace."""

    program = os.path.abspath(__file__)  # the server program a subclass runs instead
    socket_name = "mock-control.sock"
    what = "mock model server"

    def __init__(self, workdir: str, netns: bool) -> None:
        self.netns = netns
        self.control = os.path.join(workdir, self.socket_name)
        argv = [sys.executable, self.program, "--control", self.control]
        if netns:
            argv = ["unshare", "--net", "--", *argv, "--lo-up"]
        import subprocess

        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.strip():
            raise RuntimeError(f"the {self.what} did not start (exit {self.proc.poll()})")
        self.port = int(line)
        self.base_url = f"http://127.0.0.1:{self.port}"

    def wrap(self, exe: str, workdir: str, name: str) -> str:
        """An executable that runs `exe` in the mock's network namespace (or `exe` itself without one)."""
        if not self.netns:
            return exe
        path = os.path.join(workdir, name)
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\nexec nsenter --target {self.proc.pid} --net -- "{exe}" "$@"\n')
        os.chmod(path, 0o755)
        return path

    def _call(self, method: str, path: str, body: object = None) -> Any:
        import http.client

        class Conn(http.client.HTTPConnection):
            def connect(inner) -> None:
                inner.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                inner.sock.connect(self.control)

        conn = Conn("mock")
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data, headers={"content-type": "application/json"})
            return json.loads(conn.getresponse().read() or b"null")
        finally:
            conn.close()

    def script(self, default: dict[str, Any] | None = None, queue: list[dict[str, Any]] | None = None) -> None:
        body: dict[str, Any] = {"queue": queue or []}
        if default is not None:
            body["default"] = default
        self._call("POST", "/__mock/script", body)

    def requests(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "/__mock/requests"))

    def model_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests() if is_model_call(r["method"], r["path"])]

    def reset(self) -> None:
        self._call("POST", "/__mock/reset")
        self.script(default={"kind": "text", "text": DEFAULT_TEXT})

    def stop(self) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


if __name__ == "__main__":
    raise SystemExit(main())
