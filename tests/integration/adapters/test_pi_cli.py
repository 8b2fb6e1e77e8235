"""pi-cli against the real pi and the mock model server, over both APIs pi can speak to it."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from adapter_harness import UserSetup, adapter_for, cli_path, make_adapter, still_running

from skill_be.adapters.base import CallContext, CallError

MODEL = "pi-mock-model"
APIS = ["anthropic-messages", "openai-completions"]


def base_url(mock: Any, api: str) -> str:
    return mock.base_url + ("/v1" if api == "openai-completions" else "")


@pytest.mark.parametrize("api", APIS)
def test_answer_comes_back_isolated_with_the_key_and_usage(netns_mock: Any, user: UserSetup, api: str) -> None:
    netns_mock.reset()
    adapter = adapter_for("pi-cli", netns_mock, user, api)
    asyncio.run(adapter.preflight())
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=60, cwd=user.project)))

    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    requests = netns_mock.requests()
    assert len(requests) == 1  # nothing but the one model call
    call = requests[0]
    if api == "anthropic-messages":
        assert call["path"] == "/v1/messages" and call["headers"]["x-api-key"] == user.key
    else:
        assert call["path"] == "/v1/chat/completions" and call["headers"]["authorization"] == f"Bearer {user.key}"
    body = json.loads(call["body"])
    assert "Say hello." in call["body"] and body["model"] == MODEL
    assert "tools" not in body or not body["tools"]
    assert user.leaked(requests) == []
    assert user.files_holding(user.key) == []
    # What summary.json records: the flags this pi knows, and what stands in for the ones it lacks.
    iso = adapter.describe()["isolation"]
    assert "--no-tools" in iso["flags"] and "--no-session" in iso["flags"]
    for flag in ("--no-mcp", "--no-approve"):
        assert (flag in iso["flags"]) != (flag in iso["missingFlags"])


def test_without_isolation_the_planted_setup_does_reach_the_model(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    models = {"providers": {"mock": {"baseUrl": netns_mock.base_url, "api": "anthropic-messages",
                                     "apiKey": "x", "models": [{"id": MODEL}]}}}  # fmt: skip
    (user.home / ".pi/agent/models.json").write_text(json.dumps(models))
    wrapped = netns_mock.wrap(cli_path("pi"), str(user.tmp.parent), "pi-in-netns")
    subprocess.run(
        [wrapped, "-p", "--provider", "mock", "--model", MODEL, "--offline"],
        input=b"Say hello.", cwd=user.project, env=user.environ(), capture_output=True, timeout=90,
    )  # fmt: skip
    leaked = user.leaked(netns_mock.requests())
    assert {"pi-agents-md", "pi-append-system-md", "project-agents-md", "pi-project-system-md"} <= set(leaked)


def test_the_users_models_json_and_login_are_linked_not_copied(netns_mock: Any, user: UserSetup) -> None:
    """Without baseUrl and without a key, pi finds the user's providers and stored login."""
    netns_mock.reset()
    models = {"providers": {"mock": {"baseUrl": netns_mock.base_url, "api": "anthropic-messages",
                                     "apiKey": "x", "models": [{"id": MODEL}]}}}  # fmt: skip
    (user.home / ".pi/agent/models.json").write_text(json.dumps(models))
    (user.home / ".pi/agent/auth.json").write_text(json.dumps({"other": {"type": "api_key", "key": "stored-login"}}))
    wrapped = netns_mock.wrap(cli_path("pi"), str(user.tmp.parent), "pi-in-netns")
    adapter = make_adapter("pi-cli", MODEL, user, user.environ(), bin=wrapped, provider="mock")
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(60, user.project)))
    assert answer.text.startswith("MOCK-ANSWER")
    agent_dirs = [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-pi-agent-")]
    assert len(agent_dirs) == 1
    assert (agent_dirs[0] / "auth.json").is_symlink() and (agent_dirs[0] / "models.json").is_symlink()
    assert user.leaked(netns_mock.requests()) == []


def test_http_500_is_an_error_at_once_not_retries(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(queue=[{"kind": "status", "status": 500}])
    adapter = adapter_for("pi-cli", netns_mock, user)
    with pytest.raises(CallError, match="500"):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(60, user.project)), 60))
    assert len(netns_mock.model_calls()) == 1


def test_a_hung_model_call_ends_at_the_timeout_and_the_cli_is_killed(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(default={"kind": "hang"})
    adapter = adapter_for("pi-cli", netns_mock, user)
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(8, user.project)), 8))
    netns_mock.reset()
    assert still_running(f"--model {MODEL}") == []


def test_a_cli_that_exits_non_zero_is_an_error(user: UserSetup, tmp_path: Path) -> None:
    fake = tmp_path / "pi"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --help ]; then echo "--provider --model --thinking --no-tools --no-session --system-prompt"; exit 0; fi\n'
        "echo 'fake pi broke' >&2\nexit 4\n"
    )
    fake.chmod(0o755)
    adapter = make_adapter("pi-cli", MODEL, user, user.environ(), bin=str(fake), provider="mock")
    with pytest.raises(CallError, match=r"exit code 4: fake pi broke"):
        asyncio.run(adapter.complete("Hi", CallContext(30, user.project)))
