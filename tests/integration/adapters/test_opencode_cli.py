"""opencode-cli against the real opencode and the mock model server."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from adapter_harness import UserSetup, adapter_for, cli_path, make_adapter, still_running

from skill_be.adapters.base import CallContext, CallError

MODEL = "oc-mock-model"


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_answer_comes_back_isolated_with_the_key_and_usage(netns_mock: Any, user: UserSetup, api: str) -> None:
    netns_mock.reset()
    adapter = adapter_for("opencode-cli", netns_mock, user, api)
    asyncio.run(adapter.preflight())
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=90, cwd=user.project)))

    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    requests = netns_mock.requests()
    assert len(requests) == 1  # one model call: no title call, no catalogue, no plugin install
    call = requests[0]
    if api == "openai-completions":
        assert call["path"] == "/v1/chat/completions"
        assert call["headers"]["authorization"] == f"Bearer {user.key}"
    else:
        assert call["path"] == "/v1/messages" and call["headers"]["x-api-key"] == user.key
    body = json.loads(call["body"])
    assert not body.get("tools")
    assert "Say hello." in call["body"]
    assert user.leaked(requests) == []
    assert user.files_holding(user.key) == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-opencode-")] == []


@pytest.mark.parametrize(("provider", "api"), [("openai", "openai-completions"), ("anthropic", "anthropic-messages")])
def test_a_built_in_provider_name_with_a_base_url_answers(
    netns_mock: Any, user: UserSetup, provider: str, api: str
) -> None:
    """`provider: openai` (a provider opencode has built in, whose loader speaks the Responses API)
    with a `baseUrl`: the call goes to the base URL in the wire format `api` names, as the agent
    driver's does (a provider of skill-be's own name, never opencode's built-in one)."""
    netns_mock.reset()
    adapter = adapter_for("opencode-cli", netns_mock, user, api, provider=provider)
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=90, cwd=user.project)))
    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    paths = [r["path"] for r in netns_mock.requests()]
    assert paths == ["/v1/chat/completions" if api == "openai-completions" else "/v1/messages"]


def test_without_isolation_the_planted_setup_does_reach_the_model(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    provider = {"mock": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": netns_mock.base_url + "/v1"},
                         "models": {MODEL: {}}}}  # fmt: skip
    env = user.environ(
        OPENCODE_CONFIG_CONTENT=json.dumps({"provider": provider}),
        OPENCODE_DISABLE_MODELS_FETCH="1",
        npm_config_registry="http://127.0.0.1:9/",
    )
    wrapped = netns_mock.wrap(cli_path("opencode"), str(user.tmp.parent), "opencode-in-netns")
    subprocess.run(
        [wrapped, "run", "-m", f"mock/{MODEL}", "--format", "json"],
        input=b"Say hello.", cwd=user.project, env=env, capture_output=True, timeout=120,
    )  # fmt: skip
    leaked = user.leaked(netns_mock.requests())
    assert {"opencode-instructions", "project-agents-md"} <= set(leaked)


def test_http_500_is_an_error_at_once_not_a_minute_of_retries(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(queue=[{"kind": "status", "status": 500}])
    adapter = adapter_for("opencode-cli", netns_mock, user)
    with pytest.raises(CallError, match="500"):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(90, user.project)), 90))
    assert len(netns_mock.model_calls()) == 1


def test_a_hung_model_call_ends_at_the_timeout_and_the_cli_is_killed(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(default={"kind": "hang"})
    adapter = adapter_for("opencode-cli", netns_mock, user)
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(20, user.project)), 20))
    netns_mock.reset()
    assert still_running(f"skill-be/{MODEL}") == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-opencode-")] == []


def test_an_error_event_is_an_error(user: UserSetup, tmp_path: Path) -> None:
    fake = tmp_path / "opencode"
    event = {"type": "error", "error": {"name": "ProviderAuthError", "data": {"message": "no login for mock"}}}
    fake.write_text(f"#!/bin/sh\necho '{json.dumps(event)}'\nexit 0\n")
    fake.chmod(0o755)
    adapter = make_adapter("opencode-cli", MODEL, user, user.environ(), bin=str(fake), provider="mock")
    with pytest.raises(CallError, match="error event: no login for mock"):
        asyncio.run(adapter.complete("Hi", CallContext(30, user.project)))


def test_a_cli_that_exits_non_zero_is_an_error(user: UserSetup, tmp_path: Path) -> None:
    fake = tmp_path / "opencode"
    fake.write_text("#!/bin/sh\necho 'fake opencode broke' >&2\nexit 5\n")
    fake.chmod(0o755)
    adapter = make_adapter("opencode-cli", MODEL, user, user.environ(), bin=str(fake), provider="mock")
    with pytest.raises(CallError, match=r"exit code 5: fake opencode broke"):
        asyncio.run(adapter.complete("Hi", CallContext(30, user.project)))
