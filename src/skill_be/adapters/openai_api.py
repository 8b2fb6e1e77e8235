"""The `openai` adapter: one Chat Completions request per call, to OpenAI or any server that speaks
the same API (llama.cpp, vLLM, Ollama, a hosted router) through `baseUrl`."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, CallError, Usage
from skill_be.adapters.choice import Choice, Offered, descriptions, tool_names
from skill_be.adapters.http_common import KEYS, HttpAdapter
from skill_be.project.attachments import TAKEN_BY, Attachment
from skill_be.project.config import AdapterEntry

if TYPE_CHECKING:
    from skill_be.adapters.batch_openai import OpenAIBatches

OPENAI_HOST = "api.openai.com"
MIN_CACHED = 1024  # OpenAI caches a prompt's prefix from 1,024 tokens on


class OpenAIAdapter(HttpAdapter):
    name = "openai"
    default_base = "https://api.openai.com/v1"
    keys = (*KEYS, "promptCaching")

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        self.hosted = urlsplit(self.base_url).hostname == OPENAI_HOST

    def caching_default(self) -> bool:
        # prompt_cache_key is OpenAI's: a compatible server may refuse a field it does not know.
        return urlsplit(self.base_url).hostname == OPENAI_HOST

    def cache_minimum(self) -> int | None:
        return MIN_CACHED if self.prompt_caching else None

    def key_required(self) -> bool:
        # A local server usually wants no key; OpenAI itself always does.
        return self.hosted

    def headers(self) -> dict[str, str]:
        key = self.key()
        headers = {"content-type": "application/json"}
        if key:
            headers["authorization"] = f"Bearer {key}"
        return headers

    def batch_body(self, prompt: str, ctx: CallContext) -> dict[str, object]:
        """The Chat Completions body of one call: what `complete` sends, and a batch line's `body`."""
        message = {"role": "user", "content": content(prompt, ctx.attachments)}
        body: dict[str, object] = {"model": self.entry.id, "messages": [message]}
        if self.prompt_caching and ctx.cache_key:
            # The stable part already comes first; the key routes calls that share it together.
            body["prompt_cache_key"] = ctx.cache_key
        if self.max_tokens is not None:
            # OpenAI's newer models refuse max_tokens; most compatible servers know only max_tokens.
            body["max_completion_tokens" if self.hosted else "max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        body = self.batch_body(prompt, ctx)
        data = await self.post(self.base_url + "/chat/completions", self.headers(), body, ctx.timeout_seconds)
        return self.read(data)

    def batch_wire(self) -> OpenAIBatches:
        """Batch mode's wire: the Batch API on /chat/completions (adapters/batch_openai.py)."""
        from skill_be.adapters.batch_openai import OpenAIBatches

        return OpenAIBatches(self, self.headers)

    async def choose(self, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
        """Trigger evals: each skill offered as a function tool (its name and description), the query
        as the user's message; the choice is the first reply's first tool call, never its text."""
        key = self.key()
        headers = {"content-type": "application/json"}
        if key:
            headers["authorization"] = f"Bearer {key}"
        names = tool_names(offered)
        about = descriptions(offered)
        tools = [
            {
                "type": "function",
                "function": {"name": t, "description": about[s], "parameters": {"type": "object", "properties": {}}},
            }
            for t, s in names.items()
        ]
        body: dict[str, object] = {
            "model": self.entry.id,
            "messages": [{"role": "user", "content": query}],
            "tools": tools,
        }
        if self.max_tokens is not None:
            body["max_completion_tokens" if self.hosted else "max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        data = await self.post(self.base_url + "/chat/completions", headers, body, ctx.timeout_seconds)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(choices, list) or not choices:
            raise self.error("the response has no choices")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        first = calls[0] if isinstance(calls, list) and calls and isinstance(calls[0], dict) else None
        function = first.get("function") if first is not None else None
        called = function.get("name") if isinstance(function, dict) else None
        chosen = None
        if called is not None:
            chosen = names.get(str(called))
            if chosen is None:
                raise self.error(f"the reply calls a tool that was not offered: {called!r}")
        return Choice(chosen, usage_of(data), f"tool call {called}" if called else "no tool call")

    def read(self, data: object) -> Answer:
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(choices, list) or not choices:
            raise self.error("the response has no choices")
        first = choices[0]
        message = first.get("message") if isinstance(first, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # some servers send content parts
            content = "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
        text = (content or "").strip() if isinstance(content, str) or content is None else ""
        if not text:
            reason = first.get("finish_reason") if isinstance(first, dict) else None
            raise self.error(f"the answer is empty (finish reason: {reason})")
        return Answer(text=text, usage=usage_of(data))


def usage_of(data: dict[str, object]) -> Usage | None:
    """The reply's usage: prompt_tokens holds the cached ones (prompt_tokens_details.cached_tokens,
    read from the cache at a lower price; OpenAI charges nothing extra to write it)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    return Usage(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        cache_read_tokens=cached,
    )


def content(prompt: str, attachments: Sequence[Attachment]) -> str | list[dict[str, object]]:
    """The user message: the prompt as a text part, then an image part per image (as a data URL)."""
    if not attachments:
        return prompt
    parts: list[dict[str, object]] = [{"type": "text", "text": prompt}]
    for a in attachments:
        if a.media_type not in TAKEN_BY["openai"]:
            raise CallError(f"{a.name}: the openai adapter cannot send {a.media_type}")
        url = f"data:{a.media_type};base64,{base64.b64encode(a.data).decode('ascii')}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def create(entry: AdapterEntry, env: AdapterEnv) -> OpenAIAdapter:
    return OpenAIAdapter(entry, env)
