"""The gemini adapter against a scripted Gemini API server on 127.0.0.1 (tests/support/gemini_server.py):
the request on the wire, the answer and its usage, retries on 429 and 5xx, no retry on 4xx, the key."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from adapter_harness import KEY_VAR, UserSetup, make_adapter
from tests.support.gemini_server import DEFAULT_TEXT, GeminiServer

from skill_be.adapters.base import CallContext, CallError, Unreachable
from skill_be.adapters.choice import Offered
from skill_be.errors import ConfigError

MODEL = "gemini-2.5-flash"


@pytest.fixture(scope="module")
def gemini() -> Iterator[GeminiServer]:
    server = GeminiServer()
    yield server
    server.stop()


def adapter(server: GeminiServer, user: UserSetup, **settings: object) -> Any:
    environ = user.environ(**{KEY_VAR: user.key})
    return make_adapter("gemini", MODEL, user, environ, baseUrl=server.base_url, apiKeyEnv=KEY_VAR, **settings)


def call(a: Any, timeout: float = 30) -> Any:
    return asyncio.run(a.complete("Say hello.", CallContext(timeout_seconds=timeout, cwd=a.env.root)))


def test_the_request_the_answer_and_its_usage(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(default={"kind": "text", "prompt_tokens": 40, "output_tokens": 6, "cached_tokens": 32})
    a = adapter(gemini, user, maxTokens=100, temperature=0.5)
    asyncio.run(a.preflight())
    answer = call(a)
    assert answer.text == DEFAULT_TEXT
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (40, 6)
    assert answer.meta == {"stop_reason": "STOP", "cached_input_tokens": 32}
    [req] = gemini.requests()
    assert req["path"] == f"/v1beta/models/{MODEL}:generateContent"
    assert req["headers"]["x-goog-api-key"] == user.key and "authorization" not in req["headers"]
    assert "key=" not in req["path"]  # the key travels in a header, never in the URL
    assert json.loads(req["body"]) == {
        "contents": [{"role": "user", "parts": [{"text": "Say hello."}]}],
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 100},
    }


def test_a_429_waits_for_retry_after_then_succeeds(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(queue=[{"kind": "status", "status": 429, "headers": {"retry-after": "1"}}])
    assert call(adapter(gemini, user)).text == DEFAULT_TEXT
    calls = gemini.model_calls()
    assert len(calls) == 2 and calls[1]["time"] - calls[0]["time"] >= 0.9  # it waited the second asked for


def test_control_a_retry_after_longer_than_the_time_left_fails_at_once(gemini: GeminiServer, user: UserSetup) -> None:
    # The same 429 asking for 120 s: the adapter reads the header (it does not retry on its own backoff).
    gemini.reset()
    gemini.script(queue=[{"kind": "status", "status": 429, "headers": {"retry-after": "120"}}])
    with pytest.raises(CallError, match=r"gemini: HTTP 429: scripted error 429; the server asks to wait 120 s"):
        call(adapter(gemini, user), timeout=10)
    assert len(gemini.model_calls()) == 1


def test_5xx_retries_are_bounded(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(default={"kind": "status", "status": 503, "headers": {"retry-after": "0"}})
    with pytest.raises(CallError) as info:
        call(adapter(gemini, user))
    assert len(gemini.model_calls()) == 4
    url = f"{gemini.base_url}/v1beta/models/{MODEL}:generateContent"
    assert str(info.value) == f"gemini: HTTP 503: scripted error 503 (after 4 tries; {url})"


def test_a_400_is_not_retried_and_names_the_url(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(queue=[{"kind": "status", "status": 400}])
    with pytest.raises(CallError) as info:
        call(adapter(gemini, user))
    assert len(gemini.model_calls()) == 1
    url = f"{gemini.base_url}/v1beta/models/{MODEL}:generateContent"
    assert str(info.value) == f"gemini: HTTP 400: scripted error 400 ({url})"


def test_a_hung_server_is_unreachable_at_the_timeout(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(queue=[{"kind": "hang"}])
    with pytest.raises(Unreachable) as info:
        call(adapter(gemini, user), timeout=1)
    url = f"{gemini.base_url}/v1beta/models/{MODEL}:generateContent"
    assert info.value.endpoint == url and f"no answer from {url} within 1 s" in str(info.value)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"kind": "finish", "finish": "SAFETY"}, "gemini: the answer is empty (finish reason: SAFETY)"),
        ({"kind": "blocked", "reason": "SAFETY"}, "gemini: the prompt was blocked (block reason: SAFETY)"),
        ({"kind": "malformed"}, "gemini: the response is not JSON"),
    ],
)
def test_a_refused_or_broken_reply_is_a_failed_call_not_retried(
    gemini: GeminiServer, user: UserSetup, action: dict[str, Any], words: str
) -> None:
    gemini.reset()
    gemini.script(queue=[action])
    with pytest.raises(CallError) as info:
        call(adapter(gemini, user))
    assert words in str(info.value) and len(gemini.model_calls()) == 1
    assert call(adapter(gemini, user)).text == DEFAULT_TEXT  # control: the next reply is an answer


def test_without_a_key_preflight_stops_before_any_call(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    a = make_adapter("gemini", MODEL, user, user.environ(), baseUrl=gemini.base_url)
    with pytest.raises(ConfigError) as info:
        asyncio.run(a.preflight())
    assert str(info.value) == (
        "skill-be.yaml: model.apiKeyEnv: GEMINI_API_KEY is unset or empty; "
        "the gemini adapter sends an API key with every request: export GEMINI_API_KEY"
    )
    assert gemini.requests() == []
    ok = make_adapter("gemini", MODEL, user, user.environ(GEMINI_API_KEY="g-1234"), baseUrl=gemini.base_url)
    asyncio.run(ok.preflight())  # control: the default variable set, preflight passes
    assert call(ok).text == DEFAULT_TEXT and gemini.requests()[0]["headers"]["x-goog-api-key"] == "g-1234"


def test_the_key_is_redacted_from_errors(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(queue=[{"kind": "status", "status": 403, "echo_key": True}])
    with pytest.raises(CallError) as info:
        call(adapter(gemini, user))
    assert user.key not in str(info.value) and "key=***" in str(info.value)


def test_a_trigger_call_offers_function_declarations(gemini: GeminiServer, user: UserSetup) -> None:
    gemini.reset()
    gemini.script(default={"kind": "tools", "rules": [{"when": "timeout", "call": "duration"}]})
    a = adapter(gemini, user)
    offered = [Offered("duration", "Use for durations."), Offered("money", "Use for money.")]
    ctx = CallContext(timeout_seconds=30, cwd=a.env.root)
    hit = asyncio.run(a.choose("add two timeout values", offered, ctx))
    miss = asyncio.run(a.choose("what is the capital of Egypt?", offered, ctx))  # control: no call, no choice
    assert (hit.name, miss.name) == ("duration", None)
    body = gemini.bodies()[0]
    assert body["tools"] == [{"functionDeclarations": [
        {"name": "duration", "description": "Use for durations."},
        {"name": "money", "description": "Use for money."},
    ]}]  # fmt: skip
    assert hit.usage is not None and (hit.usage.input_tokens, hit.usage.output_tokens) == (50, 9)
