"""The `anthropic` adapter: one Messages API request per call, straight to the API (no CLI)."""

from __future__ import annotations

import base64
from collections.abc import Sequence

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, CallError, Usage
from skill_be.adapters.choice import Choice, Offered, descriptions, tool_names
from skill_be.adapters.http_common import HttpAdapter
from skill_be.project.attachments import PDF, TAKEN_BY, Attachment
from skill_be.project.config import AdapterEntry

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192  # the Messages API requires max_tokens
TRIGGER_MAX_TOKENS = 1024  # a trigger call needs only the first reply's tool call


class AnthropicAdapter(HttpAdapter):
    name = "anthropic"
    default_base = "https://api.anthropic.com"
    default_key_env = "ANTHROPIC_API_KEY"

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        if self.temperature is not None and self.temperature > 1:
            raise entry.where.key("temperature").error(f"must be a number from 0 to 1, not {self.temperature:g}")

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        key = self.key()
        headers = {"anthropic-version": API_VERSION, "content-type": "application/json"}
        if key:
            headers["x-api-key"] = key
        body: dict[str, object] = {
            "model": self.entry.id,
            "max_tokens": self.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": content(prompt, ctx.attachments)}],
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        data = await self.post(self.base_url + "/v1/messages", headers, body, ctx.timeout_seconds)
        return self.read(data)

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

    def _usage(self, data: dict[str, object]) -> Usage | None:
        usage = data.get("usage")
        if not isinstance(usage, dict):
            return None
        prompt_keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        return Usage(
            input_tokens=sum(int(usage.get(k) or 0) for k in prompt_keys),
            output_tokens=int(usage.get("output_tokens") or 0),
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
        usage = data.get("usage")
        tokens = None
        if isinstance(usage, dict):
            prompt_keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            tokens = Usage(
                input_tokens=sum(int(usage.get(k) or 0) for k in prompt_keys),
                output_tokens=int(usage.get("output_tokens") or 0),
            )
        meta: dict[str, object] = {"stop_reason": data["stop_reason"]} if data.get("stop_reason") else {}
        return Answer(text=text, usage=tokens, meta=meta)


def content(prompt: str, attachments: Sequence[Attachment]) -> str | list[dict[str, object]]:
    """The user message: the prompt, after a document block per PDF and an image block per image."""
    if not attachments:
        return prompt
    blocks: list[dict[str, object]] = []
    for a in attachments:
        if a.media_type not in TAKEN_BY["anthropic"]:
            raise CallError(f"{a.name}: the anthropic adapter cannot send {a.media_type}")
        kind = "document" if a.media_type == PDF else "image"
        data = base64.b64encode(a.data).decode("ascii")
        blocks.append({"type": kind, "source": {"type": "base64", "media_type": a.media_type, "data": data}})
    return [*blocks, {"type": "text", "text": prompt}]


def create(entry: AdapterEntry, env: AdapterEnv) -> AnthropicAdapter:
    return AnthropicAdapter(entry, env)
