"""The `anthropic` adapter: one Messages API request per call, straight to the API (no CLI)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TYPE_CHECKING

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, CallError, Usage
from skill_be.adapters.choice import Choice, Offered, descriptions, tool_names
from skill_be.adapters.http_common import KEYS, HttpAdapter
from skill_be.project.attachments import PDF, TAKEN_BY, Attachment
from skill_be.project.config import AdapterEntry

if TYPE_CHECKING:
    from skill_be.adapters.batch_anthropic import AnthropicBatches

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192  # the Messages API requires max_tokens
TRIGGER_MAX_TOKENS = 1024  # a trigger call needs only the first reply's tool call
# Prompt caching: the shortest prefix the API caches, in tokens (shorter: a marker caches nothing),
# and the most cache_control markers one request may carry.
MIN_CACHEABLE = 1024
MIN_CACHEABLE_HAIKU = 2048
MAX_BREAKPOINTS = 4
CHARS_PER_TOKEN = 4  # the estimate engine/pricing.py `tokens_of` makes: characters / 4, rounded up


class AnthropicAdapter(HttpAdapter):
    name = "anthropic"
    default_base = "https://api.anthropic.com"
    default_key_env = "ANTHROPIC_API_KEY"
    keys = (*KEYS, "promptCaching")

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        if self.temperature is not None and self.temperature > 1:
            raise entry.where.key("temperature").error(f"must be a number from 0 to 1, not {self.temperature:g}")

    def headers(self) -> dict[str, str]:
        key = self.key()
        headers = {"anthropic-version": API_VERSION, "content-type": "application/json"}
        if key:
            headers["x-api-key"] = key
        return headers

    def batch_body(self, prompt: str, ctx: CallContext) -> dict[str, object]:
        """The Messages body of one call: what `complete` sends, and a batch item's `params`."""
        body: dict[str, object] = {
            "model": self.entry.id,
            "max_tokens": self.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": content(prompt, ctx.attachments, self.breakpoints(prompt, ctx))}],
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        body = self.batch_body(prompt, ctx)
        data = await self.post(self.base_url + "/v1/messages", self.headers(), body, ctx.timeout_seconds)
        return self.read(data)

    def batch_wire(self) -> AnthropicBatches:
        """Batch mode's wire: the Message Batches API (adapters/batch_anthropic.py)."""
        from skill_be.adapters.batch_anthropic import AnthropicBatches

        return AnthropicBatches(self, self.headers)

    async def choose(self, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
        """Trigger evals: each skill offered as a tool (its name and description), the query as the
        user's message; the choice is the first tool_use block of the reply, never its text."""
        key = self.key()
        headers = {"anthropic-version": API_VERSION, "content-type": "application/json"}
        if key:
            headers["x-api-key"] = key
        names = tool_names(offered)
        about = descriptions(offered)
        tools = [
            {"name": t, "description": about[s], "input_schema": {"type": "object", "properties": {}}}
            for t, s in names.items()
        ]
        body: dict[str, object] = {
            "model": self.entry.id,
            "max_tokens": min(self.max_tokens or TRIGGER_MAX_TOKENS, TRIGGER_MAX_TOKENS),
            "tools": tools,
            "messages": [{"role": "user", "content": query}],
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        data = await self.post(self.base_url + "/v1/messages", headers, body, ctx.timeout_seconds)
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise self.error("the response has no content list")
        call = next((b for b in data["content"] if isinstance(b, dict) and b.get("type") == "tool_use"), None)
        chosen = None
        if call is not None:
            chosen = names.get(str(call.get("name")))
            if chosen is None:
                raise self.error(f"the reply calls a tool that was not offered: {call.get('name')!r}")
        return Choice(chosen, self._usage(data), f"tool_use {call.get('name')}" if call else "no tool call")

    def cache_minimum(self) -> int | None:
        if not self.prompt_caching:
            return None
        return MIN_CACHEABLE_HAIKU if "haiku" in self.entry.id.lower() else MIN_CACHEABLE

    def breakpoints(self, prompt: str, ctx: CallContext) -> tuple[int, ...]:
        """Where cache_control markers go: the ends of the prompt's stable parts (CallContext.stable)
        long enough for the model's minimum, at most MAX_BREAKPOINTS (the longest); none when
        promptCaching is off."""
        if not self.prompt_caching:
            return ()
        least = self.cache_minimum() or MIN_CACHEABLE
        fit = [c for c in ctx.stable if 0 < c <= len(prompt) and (c + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN >= least]
        return tuple(sorted(set(fit)))[-MAX_BREAKPOINTS:]

    def _usage(self, data: dict[str, object]) -> Usage | None:
        """The reply's usage: input_tokens counts only what follows the last cache breakpoint, so the
        input is the sum of the three counts; the cache's two kept apart (priced apart)."""
        usage = data.get("usage")
        if not isinstance(usage, dict):
            return None
        written = int(usage.get("cache_creation_input_tokens") or 0)
        read = int(usage.get("cache_read_input_tokens") or 0)
        return Usage(
            input_tokens=int(usage.get("input_tokens") or 0) + written + read,
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_write_tokens=written,
            cache_read_tokens=read,
        )

    def read(self, data: object) -> Answer:
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise self.error("the response has no content list")
        text = "".join(
            str(block.get("text") or "")
            for block in data["content"]
            if isinstance(block, dict) and block.get("type") == "text"
        ).strip()
        if not text:
            raise self.error(f"the answer is empty (stop reason: {data.get('stop_reason')})")
        tokens = self._usage(data)
        meta: dict[str, object] = {"stop_reason": data["stop_reason"]} if data.get("stop_reason") else {}
        return Answer(text=text, usage=tokens, meta=meta)


def content(prompt: str, attachments: Sequence[Attachment], marks: Sequence[int] = ()) -> str | list[dict[str, object]]:
    """The user message: the prompt, after a document block per PDF and an image block per image.
    With `marks` (cache breakpoints, increasing offsets), the prompt is cut into text blocks there,
    each block that ends at a mark carrying cache_control: the blocks' texts joined are the prompt."""
    if not attachments and not marks:
        return prompt
    return [*_attached(attachments), *_text_blocks(prompt, marks)]


def _text_blocks(prompt: str, marks: Sequence[int]) -> list[dict[str, object]]:
    blocks: list[dict[str, object]] = []
    start = 0
    for cut in marks:
        if start < cut <= len(prompt):
            blocks.append({"type": "text", "text": prompt[start:cut], "cache_control": {"type": "ephemeral"}})
            start = cut
    if start < len(prompt) or not blocks:
        blocks.append({"type": "text", "text": prompt[start:]})
    return blocks


def _attached(attachments: Sequence[Attachment]) -> list[dict[str, object]]:
    blocks: list[dict[str, object]] = []
    for a in attachments:
        if a.media_type not in TAKEN_BY["anthropic"]:
            raise CallError(f"{a.name}: the anthropic adapter cannot send {a.media_type}")
        kind = "document" if a.media_type == PDF else "image"
        data = base64.b64encode(a.data).decode("ascii")
        blocks.append({"type": kind, "source": {"type": "base64", "media_type": a.media_type, "data": data}})
    return blocks


def create(entry: AdapterEntry, env: AdapterEnv) -> AnthropicAdapter:
    return AnthropicAdapter(entry, env)
