"""The anthropic and openai adapters against the mock model server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from adapter_harness import UserSetup, adapter_for, make_adapter

from skill_be.adapters.base import CallContext, CallError
from skill_be.errors import ConfigError

ADAPTERS = ["anthropic", "openai"]


def call(adapter: Any, timeout: float = 30) -> Any:
    return asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=timeout, cwd=adapter.env.root)))


@pytest.mark.parametrize("name", ADAPTERS)
def test_answer_usage_and_key(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    adapter = adapter_for(name, plain_mock, user, maxTokens=100, temperature=0.5)
    asyncio.run(adapter.preflight())
    answer = call(adapter)
    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    [req] = plain_mock.requests()
    body = json.loads(req["body"])
    assert body["messages"] == [{"role": "user", "content": "Say hello."}]
    assert body["temperature"] == 0.5 and body["max_tokens"] == 100
    if name == "anthropic":
        assert req["path"] == "/v1/messages"
        assert req["headers"]["x-api-key"] == user.key and req["headers"]["anthropic-version"] == "2023-06-01"
    else:
        assert req["path"] == "/v1/chat/completions" and req["headers"]["authorization"] == f"Bearer {user.key}"


@pytest.mark.parametrize("name", ADAPTERS)
def test_429_waits_for_retry_after_then_succeeds(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(queue=[{"kind": "status", "status": 429, "headers": {"retry-after": "1"}}])
    assert call(adapter_for(name, plain_mock, user)).text.startswith("MOCK-ANSWER")
    assert len(plain_mock.model_calls()) == 2  # that retry-after is read at all: see the 120 s case below


@pytest.mark.parametrize("name", ADAPTERS)
def test_500_then_success(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(queue=[{"kind": "status", "status": 500, "headers": {"retry-after": "0"}}])
    assert call(adapter_for(name, plain_mock, user)).text.startswith("MOCK-ANSWER")
    assert len(plain_mock.model_calls()) == 2


@pytest.mark.parametrize("name", ADAPTERS)
def test_retries_are_bounded_and_the_key_is_redacted(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(default={"kind": "status", "status": 503, "headers": {"retry-after": "0"}, "echo_key": True})
    with pytest.raises(CallError) as info:
        call(adapter_for(name, plain_mock, user))
    assert len(plain_mock.model_calls()) == 4
    assert "HTTP 503" in str(info.value) and "after 4 tries" in str(info.value)
    assert user.key not in str(info.value) and "***" in str(info.value)


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_retry_after_longer_than_the_time_left_fails_at_once(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(queue=[{"kind": "status", "status": 429, "headers": {"retry-after": "120"}}])
    with pytest.raises(CallError, match=r"HTTP 429.*wait 120 s"):
        call(adapter_for(name, plain_mock, user), timeout=10)
    assert len(plain_mock.model_calls()) == 1


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_hung_connection_is_an_error_at_the_timeout(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(default={"kind": "hang"})
    with pytest.raises(CallError, match=r"no answer from http://127.0.0.1:\d+/\S+ within 2 s"):
        call(adapter_for(name, plain_mock, user), timeout=2)


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_malformed_body_is_an_error(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(queue=[{"kind": "malformed"}])
    with pytest.raises(CallError, match="not JSON"):
        call(adapter_for(name, plain_mock, user))
    assert len(plain_mock.model_calls()) == 1


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_client_error_is_not_retried(plain_mock: Any, user: UserSetup, name: str) -> None:
    plain_mock.reset()
    plain_mock.script(queue=[{"kind": "status", "status": 400}])
    with pytest.raises(CallError, match="HTTP 400: mock error 400"):
        call(adapter_for(name, plain_mock, user))
    assert len(plain_mock.model_calls()) == 1


def test_anthropic_without_a_key_stops_in_preflight(plain_mock: Any, user: UserSetup) -> None:
    adapter = make_adapter("anthropic", "m", user, user.environ(), baseUrl=plain_mock.base_url)
    with pytest.raises(ConfigError, match=r"model\.apiKeyEnv: ANTHROPIC_API_KEY is unset or empty"):
        asyncio.run(adapter.preflight())


def test_openai_compatible_local_server_needs_no_key(plain_mock: Any, user: UserSetup) -> None:
    plain_mock.reset()
    adapter = make_adapter("openai", "m", user, user.environ(), baseUrl=plain_mock.base_url + "/v1")
    asyncio.run(adapter.preflight())
    assert call(adapter).text.startswith("MOCK-ANSWER")
    assert "authorization" not in plain_mock.requests()[0]["headers"]
