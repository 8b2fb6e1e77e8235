"""codex-cli against the real codex (0.169.0) and the mock model server's Responses API."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import pytest
from adapter_harness import UserSetup, adapter_for, cli_path, make_adapter, still_running

from skill_be.adapters.base import CallContext, CallError
from skill_be.errors import ConfigError


def plant_codex(user: UserSetup) -> None:
    """The user's own Codex setup, each piece with a marker: it must never reach the model."""
    user.write(".codex/AGENTS.md", "codex-home-agents-md")
    user.write(".codex/config.toml", "codex-user-config", 'developer_instructions = "Always say {m}."\n')
    user.write(".agents/skills/marker/SKILL.md", "codex-user-skill", "---\nname: marker\ndescription: {m}\n---\n{m}\n")
    user.write(".agents/skills/marker/SKILL.md", "codex-project-skill",
               "---\nname: marker2\ndescription: {m}\n---\n{m}\n", root=user.project)  # fmt: skip


def test_answer_comes_back_isolated_with_the_key_usage_and_no_tools(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    plant_codex(user)
    adapter = adapter_for("codex-cli", netns_mock, user)
    asyncio.run(adapter.preflight())
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=90, cwd=user.project)))

    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    requests = netns_mock.requests()
    assert [(r["method"], r["path"]) for r in requests] == [("POST", "/v1/responses")]  # nothing else, no retry
    call = requests[0]
    assert call["headers"]["authorization"] == f"Bearer {user.key}"
    body = json.loads(call["body"])
    assert body["model"] == "codex-mock-model" and body["stream"] is True
    # Every tool that can act is off (request_user_input cannot, in exec); no skill list, no coding prompt.
    assert [t.get("name") for t in body.get("tools") or []] == ["request_user_input"]
    assert "skills_instructions" not in call["body"] and "You are a coding agent" not in call["body"]
    assert "No tools are available" in call["body"] and "Say hello." in call["body"]
    assert user.leaked(requests) == []
    assert user.files_holding(user.key) == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-codex-")] == []


def test_a_local_server_without_a_key_answers_and_gets_no_key(netns_mock: Any, user: UserSetup) -> None:
    """No apiKeyEnv and a baseUrl (a local model server): Codex sends no key, and the call answers.
    (With `env_key` named and its variable unset, Codex fails every call: "Missing environment variable".)"""
    netns_mock.reset()
    wrapped = netns_mock.wrap(cli_path("codex"), str(user.tmp.parent), "codex-in-netns")
    adapter = make_adapter("codex-cli", "codex-mock-model", user, user.environ(), bin=wrapped,
                           baseUrl=netns_mock.base_url + "/v1")  # fmt: skip
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=90, cwd=user.project)))
    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    (call,) = netns_mock.requests()
    assert "authorization" not in call["headers"]


def test_without_isolation_the_planted_setup_does_reach_the_model(netns_mock: Any, user: UserSetup) -> None:
    """The control: the same codex with the user's own CODEX_HOME and HOME offers what the adapter hides."""
    netns_mock.reset()
    plant_codex(user)
    (user.home / ".codex/config.toml").write_text(
        (user.home / ".codex/config.toml").read_text()
        + f'model_provider = "mock"\n[model_providers.mock]\nname = "mock"\nbase_url = "{netns_mock.base_url}/v1"\n'
        'wire_api = "responses"\n'
    )
    wrapped = netns_mock.wrap(cli_path("codex"), str(user.tmp.parent), "codex-in-netns")
    env = user.environ(CODEX_HOME=str(user.home / ".codex"))
    subprocess.run([wrapped, "exec", "--skip-git-repo-check", "-m", "m", "Say hello."], cwd=user.project, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=120)  # fmt: skip
    leaked = set(user.leaked(netns_mock.requests()))
    assert {"codex-home-agents-md", "codex-user-config", "codex-user-skill", "codex-project-skill"} <= leaked


def test_http_500_is_an_error_at_once_without_retries(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(queue=[{"kind": "status", "status": 500}] * 5)
    adapter = adapter_for("codex-cli", netns_mock, user)
    # Codex words a 500 its own way ("We're currently experiencing high demand ..."), not the server's.
    with pytest.raises(CallError, match="the model call failed: "):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(90, user.project)), 90))
    assert len(netns_mock.model_calls()) == 1


def test_a_hung_model_call_ends_at_the_timeout_and_the_cli_is_killed(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(default={"kind": "hang"})
    adapter = adapter_for("codex-cli", netns_mock, user)
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(20, user.project)), 20))
    netns_mock.reset()
    assert still_running("codex-mock-model") == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-codex-")] == []


def test_no_key_and_openais_host_is_refused_before_any_call(netns_mock: Any, user: UserSetup) -> None:
    from adapter_harness import make_adapter

    adapter = make_adapter("codex-cli", "gpt-x", user, user.environ(), bin=cli_path("codex"))
    with pytest.raises(ConfigError, match="no stored Codex login"):
        asyncio.run(adapter.preflight())
