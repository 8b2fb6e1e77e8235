"""A scripted Gemini API server for the `gemini` adapter's tests: `POST /v1beta/models/<m>:generateContent`
(not streamed) on 127.0.0.1, in a thread of the test process, logging every request.

    server = GeminiServer(); server.script(default=ACTION, queue=[ACTION, ...]); ...; server.stop()

Model calls take queued actions first, then the default. An ACTION is
  {"kind": "text", "text": "...", "prompt_tokens": 11, "output_tokens": 7, "cached_tokens": 0,
   "thoughts_tokens": 0, "finish": "STOP", "thought": "..." (a thought part before the text),
   "rules": [{"when": "word" or ["w1", "w2"], "text": "..."}] (the first rule whose words the last
   user turn all contains gives the text instead)}
| {"kind": "finish", "finish": "SAFETY"}        (a candidate with no parts, as a safety stop sends)
| {"kind": "blocked", "reason": "SAFETY"}       (no candidates: the prompt was blocked)
| {"kind": "status", "status": 500, "headers": {"retry-after": "1"}, "echo_key": false}
                                               (a Google-style error body; echo_key quotes the key in it)
| {"kind": "hang"}                               (no reply until the client gives up)
| {"kind": "malformed"}                          (200 with a body that is not JSON)
| {"kind": "tools", "rules": [RULE, ...]}       (trigger evals)
A "tools" action reads the request's function declarations and its last user turn's text: the first
RULE that matches decides. RULE = {"when": "word" (the text contains it; absent: always), "call":
"<function name>" (a functionCall part, when that function is declared), "say": "text"}. No rule
matches: a text reply without a call. A request without tools gets a text reply.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import Loopback

DEFAULT_TEXT = "GEMINI-ANSWER: the scripted Gemini says hello"
ROUTE = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):generateContent$")
STATUS_NAMES = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
                500: "INTERNAL", 503: "UNAVAILABLE"}  # fmt: skip


def usage(action: dict[str, Any]) -> dict[str, Any]:
    prompt, out = int(action.get("prompt_tokens", 11)), int(action.get("output_tokens", 7))
    meta: dict[str, Any] = {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
    if action.get("cached_tokens"):
        meta["cachedContentTokenCount"] = int(action["cached_tokens"])
    if action.get("thoughts_tokens"):
        meta["thoughtsTokenCount"] = int(action["thoughts_tokens"])
        meta["totalTokenCount"] += int(action["thoughts_tokens"])
    return meta


def reply(parts: list[dict[str, Any]], finish: str, action: dict[str, Any]) -> dict[str, Any]:
    candidate: dict[str, Any] = {"finishReason": finish, "index": 0}
    if parts:
        candidate["content"] = {"role": "model", "parts": parts}
    return {"candidates": [candidate], "usageMetadata": usage(action), "modelVersion": "scripted-gemini"}


def last_user_text(req: dict[str, Any]) -> str:
    turns = [c for c in req.get("contents") or () if isinstance(c, dict) and c.get("role", "user") == "user"]
    parts = turns[-1].get("parts") if turns else []
    return " ".join(str(p.get("text") or "") for p in parts or () if isinstance(p, dict))


def matches(rule: dict[str, Any], text: str) -> bool:
    """A rule's `when`: absent (always), a word, or a list of words the text must all contain."""
    when = rule.get("when")
    words = [when] if isinstance(when, str) else list(when or ())
    return all(w in text for w in words)


def answer_text(req: dict[str, Any], action: dict[str, Any]) -> str:
    """A text action's answer: the `text` of its first matching rule, else its own `text`."""
    prompt = last_user_text(req)
    rule = next((r for r in action.get("rules") or () if matches(r, prompt)), {})
    return str(rule.get("text", action.get("text", DEFAULT_TEXT)))


def tool_reply(req: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    declared = [d.get("name") for t in req.get("tools") or () for d in t.get("functionDeclarations") or ()]
    text = last_user_text(req)
    rule = next((r for r in action.get("rules") or () if matches(r, text)), {})
    call = rule.get("call") if rule.get("call") in declared else None
    say = str(rule.get("say", "" if call else "I can answer that directly."))
    parts: list[dict[str, Any]] = [{"text": say}] if say else []
    if call:
        parts.append({"functionCall": {"name": call, "args": {}}})
    return reply(parts, "STOP", {"prompt_tokens": 50, "output_tokens": 9})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any  # a GeminiServer's ThreadingHTTPServer, carrying .owner

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _json(self, status: int, data: object, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), extra)

    def _send(self, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json; charset=UTF-8")
        self.send_header("content-length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, extra: dict[str, str] | None = None) -> None:
        err = {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN")}
        self._json(status, {"error": err}, extra)

    def do_POST(self) -> None:
        owner: GeminiServer = self.server.owner
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n) if n else b""
        record = {"method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                  "body": body.decode("utf-8", errors="replace"), "time": time.time()}  # fmt: skip
        with owner.lock:
            owner.log.append(record)
        route = ROUTE.match(self.path)
        if route is None:
            return self._error(404, f"no such method: POST {self.path}")
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            return self._error(400, "Invalid JSON payload received.")
        self._act(owner.next_action(), req)

    def _act(self, action: dict[str, Any], req: dict[str, Any]) -> None:
        owner: GeminiServer = self.server.owner
        kind = action.get("kind", "text")
        if kind == "tools" and not req.get("tools"):
            kind = "text"
        if kind == "tools":
            return self._json(200, tool_reply(req, action))
        if kind == "status":
            status = int(action.get("status", 500))
            message = f"scripted error {status}"
            if action.get("echo_key"):  # a careless server that quotes the key back
                message += " key=" + str(self.headers.get("x-goog-api-key") or "")
            return self._error(status, message, dict(action.get("headers") or {}))
        if kind == "hang":
            owner.closing.wait(120)
            self.close_connection = True
            return None
        if kind == "malformed":
            return self._send(200, b"{this is not json")
        if kind == "blocked":
            feedback = {"blockReason": action.get("reason", "SAFETY")}
            return self._json(200, {"promptFeedback": feedback, "usageMetadata": usage(action)})
        if kind == "finish":
            return self._json(200, reply([], str(action.get("finish", "SAFETY")), action))
        parts: list[dict[str, Any]] = [{"text": action["thought"], "thought": True}] if action.get("thought") else []
        parts.append({"text": answer_text(req, action)})
        return self._json(200, reply(parts, str(action.get("finish", "STOP")), action))


class GeminiServer(Loopback):
    """The scripted server on 127.0.0.1 (port chosen by the system), served from a daemon thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[dict[str, Any]] = []
        self.default: dict[str, Any] = {"kind": "text"}
        self.queue: list[dict[str, Any]] = []
        self.closing = threading.Event()
        self.serve(Handler)

    def next_action(self) -> dict[str, Any]:
        with self.lock:
            return self.queue.pop(0) if self.queue else dict(self.default)

    def script(self, default: dict[str, Any] | None = None, queue: list[dict[str, Any]] | None = None) -> None:
        with self.lock:
            if default is not None:
                self.default = dict(default)
            self.queue = [dict(a) for a in queue or ()]

    def reset(self) -> None:
        with self.lock:
            self.log.clear()
            self.queue.clear()
            self.default = {"kind": "text"}

    def requests(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.log)

    def model_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests() if ROUTE.match(r["path"])]

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r["body"]) for r in self.model_calls()]

    def stop(self) -> None:
        self.closing.set()
        super().stop()
