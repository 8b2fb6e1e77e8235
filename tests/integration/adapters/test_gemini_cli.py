"""gemini-cli against the real gemini (0.61.0) and the mock model server's Gemini API
(`:streamGenerateContent?alt=sse`)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import pytest
from adapter_harness import UserSetup, adapter_for, cli_path, make_adapter, still_running

from skill_be.adapters.base import CallContext, CallError
from skill_be.errors import ConfigError

MODEL_PATH = "/v1beta/models/gemini-mock-model:streamGenerateContent?alt=sse"


def plant_gemini(user: UserSetup) -> None:
    """The user's own Gemini setup, each piece with a marker: it must never reach the model."""
    user.write(".gemini/GEMINI.md", "gemini-user-md")
    user.write("GEMINI.md", "gemini-project-md", root=user.project)
    user.write(".gemini/skills/marker/SKILL.md", "gemini-user-skill", "---\nname: marker\ndescription: {m}\n---\n{m}\n")
    user.write(".agents/skills/marker2/SKILL.md", "gemini-agents-skill",
               "---\nname: marker2\ndescription: {m}\n---\n{m}\n")  # fmt: skip
    user.write(".gemini/skills/marker3/SKILL.md", "gemini-project-skill",
               "---\nname: marker3\ndescription: {m}\n---\n{m}\n", root=user.project)  # fmt: skip


def test_answer_comes_back_isolated_with_the_key_usage_and_no_tools(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    plant_gemini(user)
    adapter = adapter_for("gemini-cli", netns_mock, user)
    asyncio.run(adapter.preflight())
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=90, cwd=user.project)))

    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    requests = netns_mock.requests()
    # One call to the model named (no `auto` classifier call), nothing else, no retry.
    assert [(r["method"], r["path"]) for r in requests] == [("POST", MODEL_PATH)]
    call = requests[0]
    assert call["headers"]["x-goog-api-key"] == user.key
    body = json.loads(call["body"])
    assert [f for t in body.get("tools") or [] for f in t.get("functionDeclarations") or []] == []
    system = json.dumps(body["systemInstruction"])
    assert "No tools are available" in system and "Gemini CLI" not in system  # skill-be's note, not Gemini's prompt
    assert "available_skills" not in call["body"] and "Say hello." in call["body"]
    assert user.leaked(requests) == []
    assert user.files_holding(user.key) == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-gemini-")] == []


def test_without_isolation_the_planted_setup_does_reach_the_model(netns_mock: Any, user: UserSetup) -> None:
    """The control: the same gemini with the user's own HOME and the project as its folder offers what
    the adapter hides."""
    netns_mock.reset()
    plant_gemini(user)
    (user.home / ".gemini/settings.json").write_text(json.dumps({"security": {"auth": {"selectedType":
                                                                                       "gemini-api-key"}}}))  # fmt: skip
    wrapped = netns_mock.wrap(cli_path("gemini"), str(user.tmp.parent), "gemini-in-netns")
    env = user.environ(GEMINI_API_KEY="k", GOOGLE_GEMINI_BASE_URL=netns_mock.base_url)
    subprocess.run([wrapped, "-m", "m", "-p", "Say hello.", "--skip-trust", "--approval-mode", "yolo"],
                   cwd=user.project, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)  # fmt: skip
    leaked = set(user.leaked(netns_mock.requests()))
    assert {"gemini-user-md", "gemini-project-md", "gemini-user-skill", "gemini-agents-skill",
            "gemini-project-skill"} <= leaked  # fmt: skip


def test_http_500_is_an_error_at_once_without_retries(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(queue=[{"kind": "status", "status": 500}] * 5)
    adapter = adapter_for("gemini-cli", netns_mock, user)
    with pytest.raises(CallError, match=r"the model call failed: .*500"):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(90, user.project)), 90))
    assert len(netns_mock.model_calls()) == 1


def test_a_hung_model_call_ends_at_the_timeout_and_the_cli_is_killed(netns_mock: Any, user: UserSetup) -> None:
    netns_mock.reset()
    netns_mock.script(default={"kind": "hang"})
    adapter = adapter_for("gemini-cli", netns_mock, user)
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(20, user.project)), 20))
    netns_mock.reset()
    assert still_running("gemini-mock-model") == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-gemini-")] == []


def test_no_key_and_googles_host_is_refused_before_any_call(netns_mock: Any, user: UserSetup) -> None:
    adapter = make_adapter("gemini-cli", "gemini-x", user, user.environ(), bin=cli_path("gemini"))
    with pytest.raises(ConfigError, match="no stored Gemini login"):
        asyncio.run(adapter.preflight())
