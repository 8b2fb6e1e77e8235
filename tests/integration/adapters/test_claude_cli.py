"""claude-cli against the real Claude Code and the mock model server."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from adapter_harness import UserSetup, adapter_for, cli_path, make_adapter, still_running

from skill_be.adapters.base import CallContext, CallError

MODEL = "claude-mock-model"


def test_answer_comes_back_isolated_with_the_key_and_usage(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    adapter = adapter_for("claude-cli", netns_mock, user)
    asyncio.run(adapter.preflight())
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=60, cwd=user.project)))

    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    requests = netns_mock.requests()
    calls = netns_mock.model_calls()
    assert len(calls) == 1
    assert calls[0]["headers"]["x-api-key"] == user.key
    assert '"Say hello.' in calls[0]["body"] or "Say hello." in calls[0]["body"]
    # Everything that reached the mock is the API (HEAD / is Claude Code's reachability probe).
    assert {r["path"].split("?")[0] for r in requests} <= {"/", "/api/hello", "/v1/messages"}
    assert user.leaked(requests) == []
    assert user.files_holding(user.key) == []
    assert list(user.tmp.iterdir()) == [] or all(not p.name.startswith("skill-be-") for p in user.tmp.iterdir())


def test_without_isolation_the_planted_setup_does_reach_the_model(netns_mock: Any, user: UserSetup) -> None:
    """The control experiment: the same CLI without skill-be's flags picks the markers up, so the test
    above would fail if the isolation broke."""
    netns_mock.reset()
    wrapped = netns_mock.wrap(cli_path("claude"), str(user.tmp.parent), "claude-in-netns")
    env = user.environ(ANTHROPIC_BASE_URL=netns_mock.base_url, ANTHROPIC_API_KEY=user.key,
                       CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", CLAUDE_CODE_MAX_RETRIES="0")  # fmt: skip
    subprocess.run(
        [wrapped, "-p", "--model", MODEL],
        input=b"Say hello.",
        cwd=user.project,
        env=env,
        capture_output=True,
        timeout=90,
    )
    leaked = user.leaked(netns_mock.requests())
    assert "home-claude-md" in leaked or "claude-user-memory" in leaked
    assert "project-claude-md" in leaked


def test_http_500_is_an_error_at_once_not_retries(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(queue=[{"kind": "status", "status": 500}])
    adapter = adapter_for("claude-cli", netns_mock, user)
    with pytest.raises(CallError, match="500"):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(60, user.project)), 60))
    assert len(netns_mock.model_calls()) == 1


def test_a_hung_model_call_ends_at_the_timeout_and_the_cli_is_killed(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(default={"kind": "hang"})
    adapter = adapter_for("claude-cli", netns_mock, user)
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(5, user.project)), 5))
    netns_mock.reset()
    assert still_running(f"--model {MODEL}") == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-claude-")] == []


def test_a_cli_that_exits_non_zero_is_an_error(user: UserSetup, tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho 'fake claude broke' >&2\nexit 3\n")
    fake.chmod(0o755)
    adapter = make_adapter("claude-cli", MODEL, user, user.environ(), bin=str(fake))
    with pytest.raises(CallError, match=r"exit code 3: fake claude broke"):
        asyncio.run(adapter.complete("Hi", CallContext(30, user.project)))
