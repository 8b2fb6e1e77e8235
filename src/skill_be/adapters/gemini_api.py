"""The `gemini` adapter: one Gemini API `generateContent` request per call, straight to the API (no CLI).

The request: `POST <baseUrl>/v1beta/models/<id>:generateContent`, the key in the `x-goog-api-key`
header, the prompt as one `user` turn (`contents`), `maxTokens` and `temperature` as
`generationConfig.maxOutputTokens` and `.temperature`. The answer is the text of the first candidate's
parts (thought parts left out); its `finishReason` is recorded as the call's stop reason, and an answer
with no text (SAFETY, RECITATION, a blocked prompt, ...) is a failed call naming the reason, as the
`anthropic` adapter treats an empty answer. Trigger evals offer each skill as a function declaration;
the choice is the reply's first `functionCall` part, never its text.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, CallError, Usage
from skill_be.adapters.choice import Choice, Offered, descriptions, tool_names
from skill_be.adapters.http_common import HttpAdapter
from skill_be.project.attachments import TAKEN_BY, Attachment
from skill_be.project.config import AdapterEntry

API_VERSION = "v1beta"
# A function name the Gemini API accepts starts with a letter or an underscore (then letters, digits,
# underscores, dots, colons or dashes, 64 at most); tool_names() may give one that starts otherwise.
_FUNCTION_START = re.compile(r"^[A-Za-z_]")


class GeminiAdapter(HttpAdapter):
    name = "gemini"
    default_base = "https://generativelanguage.googleapis.com"
    default_key_env = "GEMINI_API_KEY"

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        model = entry.id.removeprefix("models/")
        base = self.base_url.removesuffix("/" + API_VERSION)  # a baseUrl given with /v1beta works too
        self.url = f"{base}/{API_VERSION}/models/{quote(model, safe='-._~')}:generateContent"

    def _headers(self) -> dict[str, str]:
        key = self.key()
        headers = {"content-type": "application/json"}
        if key:
            headers["x-goog-api-key"] = key
        return headers

    def _config(self) -> dict[str, object]:
        config: dict[str, object] = {}
        if self.temperature is not None:
            config["temperature"] = self.temperature
        if self.max_tokens is not None:
            config["maxOutputTokens"] = self.max_tokens
        return config

    def request(self, prompt: str, attachments: Sequence[Attachment] = ()) -> dict[str, object]:
        """The body of a one-shot call."""
        body: dict[str, object] = {"contents": [{"role": "user", "parts": parts(prompt, attachments)}]}
        if config := self._config():
            body["generationConfig"] = config
        return body

    def trigger_request(self, query: str, names: Mapping[str, str], about: Mapping[str, str]) -> dict[str, object]:
        """The body of a trigger call: one function declaration per skill (no parameters: the Gemini
        API refuses an object schema without properties), the query as the user's turn."""
        declarations = [{"name": t, "description": about[s]} for t, s in names.items()]
        body: dict[str, object] = {
            "contents": [{"role": "user", "parts": [{"text": query}]}],
            "tools": [{"functionDeclarations": declarations}],
        }
        if config := self._config():
            body["generationConfig"] = config
        return body

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        headers = self._headers()
        data = await self.post(self.url, headers, self.request(prompt, ctx.attachments), ctx.timeout_seconds)
        return self.read(data)

    async def choose(self, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
        """Trigger evals: each skill offered as a function declaration (its name and description), the
        query as the user's turn; the choice is the first functionCall part of the reply, never its text."""
        headers = self._headers()
        names = function_names(offered)
        body = self.trigger_request(query, names, descriptions(offered))
        data = await self.post(self.url, headers, body, ctx.timeout_seconds)
        return self.read_choice(data, names)

    def read_choice(self, data: object, names: Mapping[str, str]) -> Choice:
        """The skill a trigger reply calls (None when it calls none)."""
        candidate = self._candidate(data)
        calls = [p["functionCall"] for p in _parts(candidate) if isinstance(p.get("functionCall"), dict)]
        called = str(calls[0].get("name")) if calls and isinstance(calls[0], dict) else None
        chosen = None
        if called is not None:
            chosen = names.get(called)
            if chosen is None:
                raise self.error(f"the reply calls a function that was not offered: {called!r}")
        assert isinstance(data, dict)  # _candidate checked it
        usage, _ = usage_of(data)
        return Choice(chosen, usage, f"functionCall {called}" if called else "no function call")

    def read(self, data: object) -> Answer:
        """The answer of a one-shot reply: its text, usage and finish reason."""
        candidate = self._candidate(data)
        assert isinstance(data, dict)  # _candidate checked it
        reason = candidate.get("finishReason")
        text = "".join(
            str(p.get("text") or "")
            for p in _parts(candidate)
            if isinstance(p.get("text"), str) and not p.get("thought")
        ).strip()
        if not text:
            raise self.error(f"the answer is empty (finish reason: {reason})")
        usage, cached = usage_of(data)
        meta: dict[str, object] = {"stop_reason": reason} if reason else {}
        if cached:
            meta["cached_input_tokens"] = cached
        return Answer(text=text, usage=usage, meta=meta)

    def _candidate(self, data: object) -> dict[str, object]:
        """The reply's first candidate; a reply without one (a blocked prompt) is a failed call."""
        if not isinstance(data, dict):
            raise self.error("the response is not a JSON object")
        candidates = data.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            feedback = data.get("promptFeedback")
            blocked = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if blocked:
                raise self.error(f"the prompt was blocked (block reason: {blocked}); no answer came")
            raise self.error("the response has no candidates")
        return candidates[0]

    def describe(self) -> Mapping[str, object]:
        return {**super().describe(), "endpoint": self.url}


def _parts(candidate: Mapping[str, object]) -> list[dict[str, object]]:
    content = candidate.get("content")
    found = content.get("parts") if isinstance(content, dict) else None
    return [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []


def usage_of(data: Mapping[str, object]) -> tuple[Usage | None, int]:
    """(tokens, cached prompt tokens) from `usageMetadata`. The prompt count already holds the cached
    tokens; the output is the candidates' tokens and the thinking tokens (billed as output, as OpenAI's
    completion tokens hold the reasoning ones)."""
    meta = data.get("usageMetadata")
    if not isinstance(meta, dict):
        return None, 0
    tokens = Usage(
        input_tokens=int(meta.get("promptTokenCount") or 0),
        output_tokens=int(meta.get("candidatesTokenCount") or 0) + int(meta.get("thoughtsTokenCount") or 0),
        cache_read_tokens=int(meta.get("cachedContentTokenCount") or 0),
    )
    return tokens, int(meta.get("cachedContentTokenCount") or 0)


def function_names(offered: Sequence[Offered]) -> dict[str, str]:
    """Function name -> skill name: tool_names(), with a name that does not start with a letter or an
    underscore given a leading underscore (kept apart from the others)."""
    out: dict[str, str] = {}
    for name, skill in tool_names(offered).items():
        fixed = name if _FUNCTION_START.match(name) else ("_" + name)[:64]
        base, n = fixed, 2
        while fixed in out:
            fixed = f"{base[:60]}_{n}"
            n += 1
        out[fixed] = skill
    return out


def parts(prompt: str, attachments: Sequence[Attachment]) -> list[dict[str, object]]:
    """The user turn's parts: an inlineData part per PDF or image, then the prompt's text."""
    out: list[dict[str, object]] = []
    for a in attachments:
        if a.media_type not in TAKEN_BY["gemini"]:
            raise CallError(f"{a.name}: the gemini adapter cannot send {a.media_type}")
        data = base64.b64encode(a.data).decode("ascii")
        out.append({"inlineData": {"mimeType": a.media_type, "data": data}})
    return [*out, {"text": prompt}]


def create(entry: AdapterEntry, env: AdapterEnv) -> GeminiAdapter:
    return GeminiAdapter(entry, env)
