"""A scripted model server that accounts for prompt caching as the providers document it, for the
prompt-caching tests: the Anthropic Messages API (`POST /v1/messages`) and OpenAI Chat Completions
(`POST /v1/chat/completions`), not streamed, on 127.0.0.1 in a thread of the test process.

    server = CachingServer(); ...; server.calls(); server.stop()

Tokens are counted as characters / 4, rounded up (what the test computes by hand).

Anthropic: a text block marked `cache_control: {type: ephemeral}` ends a cache breakpoint; the prefix
up to it (the blocks' texts joined) is cacheable when it holds at least the model's minimum (1,024
tokens, 2,048 for an id with `haiku`). The longest cacheable prefix stored before is read
(`cache_read_input_tokens`); the longest cacheable prefix not yet stored is written
(`cache_creation_input_tokens`, its tokens past the part read); `input_tokens` is the rest. Unmarked
prompts are never cached. Every request is accounted for under one lock, in the order they arrive.

OpenAI: caching is automatic for prompts of 1,024 tokens or more; `prompt_tokens_details.cached_tokens`
is the longest prefix shared with an earlier prompt of the same model, rounded down to 128 tokens
(0 below 1,024); `prompt_tokens` counts them too.

The answer: "VERDICTS:\\n1: YES" to a prompt asking for VERDICTS, else ANSWER; 10 output tokens.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import Loopback

ANSWER = "It uses allocate."
OUTPUT_TOKENS = 10
OPENAI_MIN, OPENAI_STEP = 1024, 128


def tokens(text: str) -> int:
    return (len(text) + 3) // 4


def anthropic_minimum(model: str) -> int:
    return 2048 if "haiku" in model.lower() else 1024


def blocks_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def text_of(body: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in blocks_of(body) if b.get("type") == "text")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any  # carries .owner

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        owner: CachingServer = self.server.owner
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        path = self.path.rstrip("/")
        if path.endswith("/v1/messages"):
            reply = owner.anthropic(body)
        elif path.endswith("/chat/completions"):
            reply = owner.openai(body)
        else:
            reply = {"error": {"message": f"no such route {self.path}"}}
        data = json.dumps(reply).encode()
        self.send_response(404 if "error" in reply else 200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class CachingServer(Loopback):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[dict[str, Any]] = []  # {"wire", "body", "usage"} per model call, in arrival order
        self.stored: set[tuple[str, str]] = set()  # (model, prefix text) written to the cache
        self.seen: dict[str, list[str]] = {}  # model -> prompts sent before (OpenAI)
        self.serve(Handler)

    @staticmethod
    def answer(prompt: str) -> str:
        return "Looked.\n\nVERDICTS:\n1: YES" if "VERDICTS:" in prompt else ANSWER

    def anthropic(self, body: dict[str, Any]) -> dict[str, Any]:
        model, blocks = str(body["model"]), blocks_of(body)
        prompt = text_of(body)
        with self.lock:
            prefixes, upto = [], ""
            for b in blocks:
                upto += b.get("text", "")
                if b.get("cache_control") == {"type": "ephemeral"} and tokens(upto) >= anthropic_minimum(model):
                    prefixes.append(upto)
            hits = [p for p in prefixes if (model, p) in self.stored]
            read = tokens(hits[-1]) if hits else 0
            longest = prefixes[-1] if prefixes else None
            written = tokens(longest) - read if longest is not None and (model, longest) not in self.stored else 0
            self.stored.update((model, p) for p in prefixes)
            usage = {
                "input_tokens": tokens(prompt) - read - written,
                "cache_creation_input_tokens": written,
                "cache_read_input_tokens": read,
                "output_tokens": OUTPUT_TOKENS,
            }
            self.log.append({"wire": "anthropic", "body": body, "usage": usage})
        content = [{"type": "text", "text": self.answer(prompt)}]
        return {"type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn", "usage": usage}

    def openai(self, body: dict[str, Any]) -> dict[str, Any]:
        model, content = str(body["model"]), body["messages"][-1]["content"]
        prompt = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
        with self.lock:
            shared = max((_common(prompt, p) for p in self.seen.get(model, [])), default=0)
            cached = (tokens(prompt[:shared]) // OPENAI_STEP) * OPENAI_STEP if shared else 0
            cached = cached if cached >= OPENAI_MIN else 0
            self.seen.setdefault(model, []).append(prompt)
            usage = {
                "prompt_tokens": tokens(prompt),
                "completion_tokens": OUTPUT_TOKENS,
                "total_tokens": tokens(prompt) + OUTPUT_TOKENS,
                "prompt_tokens_details": {"cached_tokens": cached},
            }
            self.log.append({"wire": "openai", "body": body, "usage": usage})
        message = {"role": "assistant", "content": self.answer(prompt)}
        return {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": usage}  # fmt: skip

    def calls(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.log)

    def reset(self) -> None:
        with self.lock:
            self.log.clear()
            self.stored.clear()
            self.seen.clear()


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
