"""Settings validation, start errors and output parsing of the built-in adapters: no CLI, no network."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from skill_be.adapters.base import AdapterStartError, CallError
from skill_be.adapters.claude_cli import parse_result
from skill_be.adapters.credentials import Redactor
from skill_be.adapters.http_common import retry_after
from skill_be.adapters.pi_cli import help_flags
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.errors import ConfigError
from skill_be.proc import ProcessResult
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where

PI_HELP_0_73 = """Options:
  --provider <name>  Provider name
  --model <pattern>  Model
  --api-key <key>    API key
  --system-prompt <text>   System prompt
  --append-system-prompt <text>  Append
  --mode <mode>      Output mode
  --print, -p        Non-interactive
  --no-session       Don't save session
  --no-tools, -nt    Disable all tools
  --thinking <level> Set thinking level
  --no-extensions, -ne  Disable extension discovery (explicit -e paths still work)
  --no-skills, -ns
  --no-prompt-templates, -np
  --no-themes
  --no-context-files, -nc
  --offline
"""


def make(adapter: str, tmp_path: Path, environ: dict[str, str] | None = None, **settings: object) -> Any:
    entry = AdapterEntry(adapter, "m-1", {"adapter": adapter, "id": "m-1", **settings}, Where("skill-be.yaml", "model"))
    env = AdapterEnv(root=tmp_path, environ=environ or {"PATH": str(tmp_path)}, redactor=Redactor(), label="m-1")
    return AdapterRegistry().create(entry, env)


@pytest.mark.parametrize("name", ["claude-cli", "pi-cli", "opencode-cli", "anthropic", "openai"])
def test_every_builtin_is_registered_and_rejects_unknown_keys(name: str, tmp_path: Path) -> None:
    assert name in AdapterRegistry().names
    with pytest.raises(
        ConfigError, match=r'^skill-be.yaml: model: unknown key "apiKeyENV" \(did you mean "apiKeyEnv"\?\)'
    ):
        make(name, tmp_path, **({"provider": "p"} if name in ("pi-cli", "opencode-cli") else {}), apiKeyENV="X")


def test_pi_needs_a_provider_and_a_known_thinking_level(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r'^skill-be.yaml: model: missing required key "provider"'):
        make("pi-cli", tmp_path)
    with pytest.raises(ConfigError) as info:
        make("pi-cli", tmp_path, provider="anthropic", thinking="hihg")
    assert str(info.value) == (
        'skill-be.yaml: model.thinking: must be one of off, minimal, low, medium, high, xhigh, max, not "hihg" '
        '(did you mean "high"?)'
    )
    assert info.value.exit_code == 2
    assert make("pi-cli", tmp_path, provider="anthropic").thinking == "off"


def test_opencode_needs_a_provider(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r'model: missing required key "provider"'):
        make("opencode-cli", tmp_path)


def test_bad_base_url_and_http_settings(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r'model.baseUrl: must be an http:// or https:// URL, not "localhost:8080"'):
        make("openai", tmp_path, baseUrl="localhost:8080")
    with pytest.raises(ConfigError, match=r"model.maxTokens: must be a positive integer"):
        make("anthropic", tmp_path, maxTokens=0)
    with pytest.raises(ConfigError, match=r"model.temperature: must be a number from 0 to 1"):
        make("anthropic", tmp_path, temperature=1.5)
    with pytest.raises(ConfigError, match=r"model.api: only applies with baseUrl"):
        make("pi-cli", tmp_path, provider="p", api="anthropic-messages")


@pytest.mark.parametrize(
    ("name", "package"),
    [
        ("claude-cli", "@anthropic-ai/claude-code"),
        ("pi-cli", "@mariozechner/pi-coding-agent"),
        ("opencode-cli", "opencode-ai"),
    ],
)
def test_a_missing_cli_is_one_line_naming_entry_binary_and_install(name: str, package: str, tmp_path: Path) -> None:
    adapter = make(name, tmp_path, **({"provider": "p"} if name != "claude-cli" else {}))
    with pytest.raises(AdapterStartError) as info:
        asyncio.run(adapter.preflight())
    message = str(info.value)
    assert "\n" not in message and info.value.exit_code == 2
    assert message.startswith(
        f'skill-be.yaml: model: {name} cannot start "{adapter.spec.default_bin}" (not found on PATH)'
    )
    assert f"npm install --global {package}" in message


def test_a_relative_bin_resolves_against_the_config_directory(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    exe = tmp_path / "tools" / "claude"
    exe.write_text("#!/bin/sh\necho '2.0.0 (fake)'\n")
    exe.chmod(0o755)
    adapter = make("claude-cli", tmp_path, bin="./tools/claude")
    assert adapter.executable() == str(tmp_path / "./tools/claude")
    asyncio.run(adapter.preflight())
    broken = make("claude-cli", tmp_path, bin="../nope/claude")
    with pytest.raises(
        AdapterStartError, match=r'model.bin: claude-cli cannot start "../nope/claude" \(no such executable'
    ):
        asyncio.run(broken.preflight())


def test_a_cli_whose_version_fails_cannot_start(tmp_path: Path) -> None:
    exe = tmp_path / "pi"
    exe.write_text("#!/bin/sh\necho 'boom' >&2\nexit 9\n")
    exe.chmod(0o755)
    with pytest.raises(AdapterStartError, match=r"--version exited with code 9: boom"):
        asyncio.run(make("pi-cli", tmp_path, provider="p", bin=str(exe)).preflight())


def test_the_ci_rule_applies_in_preflight(tmp_path: Path) -> None:
    exe = tmp_path / "claude"
    exe.write_text("#!/bin/sh\necho 1\n")
    exe.chmod(0o755)
    adapter = make("claude-cli", tmp_path, {"PATH": str(tmp_path), "CI": "true"}, apiKeyEnv="MY_KEY")
    with pytest.raises(ConfigError, match=r"model.apiKeyEnv: MY_KEY is unset or empty, and CI is set"):
        asyncio.run(adapter.preflight())


def test_pi_flags_come_from_its_help_and_missing_ones_are_recorded(tmp_path: Path) -> None:
    flags = help_flags(PI_HELP_0_73)
    assert "--no-tools" in flags and "--no-mcp" not in flags and "--no-approve" not in flags
    adapter = make("pi-cli", tmp_path, provider="anthropic", thinking="low")
    argv = adapter.argv("pi", flags, "sk-secret")
    assert argv[:8] == ["pi", "-p", "--provider", "anthropic", "--model", "m-1", "--thinking", "low"]
    assert "--no-mcp" not in argv and "--no-approve" not in argv
    assert argv[argv.index("--append-system-prompt") + 1] == ""
    assert argv[-2:] == ["--api-key", "sk-secret"]
    adapter._flags = flags
    iso = adapter.describe()["isolation"]
    assert set(iso["missingFlags"]) == {"--no-mcp", "--no-approve"}
    assert "empty working dir" in iso["missingFlags"]["--no-approve"]


def test_pi_json_events_error_and_usage(tmp_path: Path) -> None:
    adapter = make("pi-cli", tmp_path, provider="p")
    reply = {"role": "assistant", "content": [{"type": "text", "text": " hi "}], "stopReason": "stop",
             "usage": {"input": 5, "output": 2, "cacheRead": 3, "cacheWrite": 1}}  # fmt: skip
    answer = adapter.read_events(json.dumps({"type": "agent_end", "messages": [{"role": "user"}, reply]}))
    assert answer.text == "hi" and (answer.usage.input_tokens, answer.usage.output_tokens) == (9, 2)
    failed = {**reply, "content": [], "stopReason": "error", "errorMessage": "429 rate limited"}
    with pytest.raises(CallError, match="pi-cli: the model call failed: 429 rate limited"):
        adapter.read_events(json.dumps({"type": "agent_end", "messages": [failed]}))


def test_claude_json_result_and_errors(tmp_path: Path) -> None:
    out = b'warning: something\n{"type":"result","is_error":false,"result":"ok","modelUsage":{"m":{"inputTokens":4,"cacheReadInputTokens":6,"outputTokens":3}}}\n'
    data = parse_result(out)
    assert data is not None and data["result"] == "ok"
    adapter = make("claude-cli", tmp_path, {"PATH": "", "K": "sk-abcdef"}, apiKeyEnv="K")
    adapter.key()
    assert adapter.failure("exit code 1", ProcessResult(1, b"", b"bad key sk-abcdef")).args[0] == (
        "claude-cli: exit code 1: bad key ***"
    )


def test_opencode_events(tmp_path: Path) -> None:
    adapter = make("opencode-cli", tmp_path, provider="p")
    lines = [
        {"type": "step_start", "part": {}},
        {"type": "text", "part": {"text": "answer"}},
        {
            "type": "step_finish",
            "part": {"tokens": {"input": 10, "output": 4, "reasoning": 1, "cache": {"read": 2, "write": 0}}},
        },
    ]
    out = "\n".join(json.dumps(x) for x in lines).encode()
    answer = adapter.read_events(ProcessResult(0, out, b""))
    assert answer.text == "answer" and (answer.usage.input_tokens, answer.usage.output_tokens) == (12, 5)
    with pytest.raises(CallError, match="the answer is empty"):
        adapter.read_events(ProcessResult(0, b"", b""))


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None
