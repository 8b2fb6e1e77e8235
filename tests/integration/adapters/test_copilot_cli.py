"""copilot-cli against the real Copilot CLI (the pinned @github/copilot) and the mock model server, in
a loopback-only network namespace when run as root: the answer and the tokens come back, no tool is
offered, nothing of the user's setup reaches the model, the key is in no file, a failed request is an
error at once. One shared cache (SKILL_BE_CACHE) serves every call: Copilot unpacks itself once."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from adapter_harness import KEY_VAR, UserSetup, cli_path, make_adapter

from skill_be.adapters.base import CallContext, CallError

MODEL = "copilot-mock-model"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("skill-be-cache")


def copilot(mock: Any, user: UserSetup, cache: Path, api: str = "openai-completions") -> Any:
    # Copilot's own places in the user's home, each with a marker that must not reach the model.
    user.write(".copilot/copilot-instructions.md", "copilot-home-instructions")
    user.write(".copilot/skills/home-skill/SKILL.md", "copilot-home-skill",
               "---\nname: home-skill\ndescription: {m}\n---\n{m}\n")  # fmt: skip
    environ = user.environ(**{KEY_VAR: user.key, "SKILL_BE_CACHE": str(cache)})
    wrapped = mock.wrap(cli_path("copilot"), str(user.tmp.parent), "copilot-in-netns")
    url = mock.base_url + ("/v1" if api == "openai-completions" else "")
    return make_adapter("copilot-cli", MODEL, user, environ, bin=wrapped, baseUrl=url, apiKeyEnv=KEY_VAR, api=api)


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_answer_comes_back_isolated_with_the_key_and_usage(
    netns_mock: Any, user: UserSetup, cache: Path, api: str
) -> None:
    netns_mock.reset()
    adapter = copilot(netns_mock, user, cache, api)
    asyncio.run(adapter.preflight())
    answer = asyncio.run(adapter.complete("Say hello.", CallContext(timeout_seconds=120, cwd=user.project)))

    assert answer.text == "MOCK-ANSWER: the mock model says hello"
    assert answer.usage is not None and (answer.usage.input_tokens, answer.usage.output_tokens) == (11, 7)
    requests = netns_mock.requests()
    assert len(requests) == 1  # one model call, and no other request
    call = requests[0]
    if api == "openai-completions":
        assert call["path"] == "/v1/chat/completions"
        assert call["headers"]["authorization"] == f"Bearer {user.key}"
    else:
        assert call["path"] == "/v1/messages" and call["headers"]["x-api-key"] == user.key
    body = json.loads(call["body"])
    assert not body.get("tools")
    assert "Say hello." in call["body"]
    assert "customize-cloud-agent" not in call["body"]  # the built-in skills are disabled
    assert user.leaked(requests) == []
    assert user.files_holding(user.key) == []
    assert [p for p in user.tmp.iterdir() if p.name.startswith("skill-be-copilot-")] == []
    assert (cache / "copilot" / "copilot" / "pkg").is_dir()  # Copilot unpacked itself into skill-be's cache
    assert not (user.home / ".cache" / "copilot").exists()  # and not into the user's own, preflight neither


def test_control_without_the_isolation_tools_skills_and_home_reach_the_model(
    netns_mock: Any, user: UserSetup, cache: Path
) -> None:
    netns_mock.reset()
    adapter = copilot(netns_mock, user, cache)
    env = user.environ(COPILOT_PROVIDER_BASE_URL=netns_mock.base_url + "/v1", COPILOT_MODEL=MODEL,
                       COPILOT_PROVIDER_API_KEY=user.key, COPILOT_OFFLINE="true",
                       XDG_CACHE_HOME=str(cache / "copilot-control"))  # fmt: skip
    subprocess.run([adapter.executable(), "--allow-all-tools", "--output-format", "json"], input=b"Say hello.",
                   cwd=user.project, env=env, capture_output=True, timeout=180)  # fmt: skip
    requests = netns_mock.model_calls()
    assert requests and json.loads(requests[0]["body"]).get("tools")
    assert "customize-cloud-agent" in requests[0]["body"]
    assert {"copilot-home-instructions", "copilot-home-skill"} <= set(user.leaked(requests))


def test_http_500_is_an_error_at_once_not_five_retries(netns_mock: Any, user: UserSetup, cache: Path) -> None:
    netns_mock.reset()
    netns_mock.script(queue=[{"kind": "status", "status": 500}] * 6)
    adapter = copilot(netns_mock, user, cache)
    with pytest.raises(CallError, match="HTTP 500"):
        asyncio.run(asyncio.wait_for(adapter.complete("Hi", CallContext(90, user.project)), 90))
    assert len(netns_mock.model_calls()) == 1


def test_settings_that_cannot_work_are_one_line(user: UserSetup) -> None:
    from skill_be.errors import ConfigError

    with pytest.raises(ConfigError, match=r'^skill-be.yaml: model: missing "baseUrl" or "provider"') as info:
        make_adapter("copilot-cli", MODEL, user, user.environ())
    assert info.value.exit_code == 2 and "\n" not in str(info.value)
    with pytest.raises(ConfigError, match=r'model.provider: must be one of openai, anthropic, not "gemini"'):
        make_adapter("copilot-cli", MODEL, user, user.environ(), provider="gemini")
    with pytest.raises(ConfigError, match=r"model.api: only applies with baseUrl"):
        make_adapter("copilot-cli", MODEL, user, user.environ(), provider="openai", api="anthropic-messages")
    assert make_adapter("copilot-cli", MODEL, user, user.environ(), provider="anthropic").wire == "anthropic"
