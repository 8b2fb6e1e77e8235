"""Helpers for the adapter integration tests: the mock model server, a fake user's setup full of
markers, and the real CLIs installed by .ci/steps/30-agent-clis.sh."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where

HERE = Path(__file__).parent
SUPPORT = HERE.parent.parent / "support" / "mock_model_server.py"
KEY_VAR = "SKILL_BE_TEST_KEY"


def _load_support() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mock_model_server", SUPPORT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mock_model_server", module)
    spec.loader.exec_module(module)
    return module


mms = _load_support()
IN_NETNS = os.geteuid() == 0  # unshare -n needs root; as root every CLI test runs offline but for loopback


def cli_path(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not on PATH: run .ci/steps/30-agent-clis.sh and source .ci/env")
    return path


@pytest.fixture(scope="module")
def netns_mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The mock for the CLI tests: inside a loopback-only network namespace when running as root."""
    server = mms.MockServer(str(tmp_path_factory.mktemp("mock")), netns=IN_NETNS)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def plain_mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The mock for the HTTP adapters, which run in the test process itself."""
    server = mms.MockServer(str(tmp_path_factory.mktemp("mock")), netns=False)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def gemini_mock() -> Iterator[Any]:
    """The scripted Gemini API server for the gemini adapter (tests/support/gemini_server.py), in this process."""
    from tests.support.gemini_server import GeminiServer

    server = GeminiServer()
    yield server
    server.stop()


@dataclass
class UserSetup:
    """A fake user: HOME and a project directory full of settings, context files and MCP servers, each
    carrying a unique marker that must never reach the model."""

    home: Path
    project: Path
    tmp: Path
    markers: dict[str, str] = field(default_factory=dict)
    mcp_started: list[Path] = field(default_factory=list)
    key: str = ""

    def environ(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "LANG": "C.UTF-8",
        }
        env.update(extra)
        return env

    def write(self, rel: str, name: str, text: str | None = None, root: Path | None = None) -> None:
        """Plant a file at HOME/rel (or root/rel) whose text holds the marker `name`."""
        marker = self.marker(name)
        path = (root or self.home) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((text or "Always end every answer with the word {m}.\n").replace("{m}", marker))

    def marker(self, name: str) -> str:
        if name not in self.markers:
            self.markers[name] = f"MARKER-{name}-{uuid.uuid4().hex[:10]}"
        return self.markers[name]

    def mcp_server(self, name: str) -> dict[str, Any]:
        started = self.tmp.parent / f"mcp-started-{name}"
        self.mcp_started.append(started)
        return {
            "command": sys.executable,
            "args": [str(HERE / "mcp_marker_server.py"), str(started), self.marker(name)],
        }

    def leaked(self, requests: list[dict[str, Any]]) -> list[str]:
        """Markers found in any request the mock received, and MCP servers that were started."""
        bodies = "\n".join(r["body"] + json.dumps(r["headers"]) for r in requests)
        found = [name for name, m in self.markers.items() if m in bodies]
        return found + [f"started {p.name}" for p in self.mcp_started if p.exists()]

    def files_holding(self, secret: str) -> list[str]:
        hits = []
        for root in (self.home, self.project, self.tmp):
            for path in root.rglob("*"):
                if path.is_file() and not path.is_symlink() and secret.encode() in path.read_bytes():
                    hits.append(str(path))
        return hits


@pytest.fixture
def user(tmp_path: Path) -> UserSetup:
    home, project, tmp = tmp_path / "home", tmp_path / "project", tmp_path / "tmp"
    for d in (home, project, tmp):
        d.mkdir()
    u = UserSetup(home=home, project=project, tmp=tmp, key="sk-test-" + uuid.uuid4().hex)
    # Context files at home and in the project (the config's directory).
    for root, where in ((home, "home"), (project, "project")):
        u.write("CLAUDE.md", f"{where}-claude-md", root=root)
        u.write("AGENTS.md", f"{where}-agents-md", root=root)
    # Claude Code: user memory, settings with a prompt hook and an output style, MCP servers.
    u.write(".claude/CLAUDE.md", "claude-user-memory")
    hook = {"hooks": [{"type": "command", "command": "echo " + u.marker("claude-hook")}]}
    settings = {"outputStyle": "marker-style", "hooks": {"UserPromptSubmit": [hook], "SessionStart": [hook]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    u.write(".claude/output-styles/marker-style.md", "claude-output-style",
            "---\nname: marker-style\ndescription: style\n---\nAlways say {m}.\n")  # fmt: skip
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"marker": u.mcp_server("claude-user-mcp")}}))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"marker": u.mcp_server("claude-project-mcp")}}))
    u.write(".claude/settings.json", "claude-project-settings", '{"env": {"X": "{m}"}}', root=project)
    # pi: global agent dir with system prompts, context, settings; project .pi files.
    u.write(".pi/agent/SYSTEM.md", "pi-system-md")
    u.write(".pi/agent/APPEND_SYSTEM.md", "pi-append-system-md")
    u.write(".pi/agent/AGENTS.md", "pi-agents-md")
    (home / ".pi/agent/settings.json").write_text(
        json.dumps({"defaultThinkingLevel": "high", "retry": {"enabled": True}})
    )
    u.write(".pi/agent/mcp.json", "pi-mcp", json.dumps({"mcpServers": {"m": u.mcp_server("pi-mcp")}}))
    u.write(".pi/agent/skills/marker/SKILL.md", "pi-skill", "---\nname: marker\ndescription: {m}\n---\n{m}\n")
    u.write(".pi/SYSTEM.md", "pi-project-system-md", root=project)
    u.write(
        ".pi/skills/marker/SKILL.md",
        "pi-project-skill",
        "---\nname: marker\ndescription: {m}\n---\n{m}\n",
        root=project,
    )
    # opencode: global config with instructions, an agent prompt and an MCP server; project config.
    u.write(".config/opencode/AGENTS.md", "opencode-global-agents-md")
    u.write(".config/opencode/instructions.md", "opencode-instructions")
    oc_mcp = u.mcp_server("opencode-mcp")
    oc = {
        "$schema": "https://opencode.ai/config.json",
        "instructions": [str(home / ".config/opencode/instructions.md")],
        "mcp": {
            "marker": {
                "type": "local",
                "command": [oc_mcp["command"], *oc_mcp["args"]],
            }
        },
        "agent": {"skill-be": {"prompt": u.marker("opencode-agent-prompt")}},
    }
    (home / ".config/opencode/opencode.json").write_text(json.dumps(oc))
    u.write(".opencode/AGENTS.md", "opencode-home-dot-opencode")
    u.write(
        "opencode.json",
        "opencode-project-config",
        json.dumps({"instructions": ["AGENTS.md"], "agent": {"skill-be": {"prompt": "{m}"}}}),
        root=project,
    )
    return u


def make_adapter(adapter: str, model_id: str, user: UserSetup, environ: Mapping[str, str], **settings: object) -> Any:
    entry = AdapterEntry(
        adapter=adapter,
        id=model_id,
        settings={"adapter": adapter, "id": model_id, **settings},
        where=Where("skill-be.yaml", "model"),
    )
    env = AdapterEnv(root=user.project, environ=dict(environ), redactor=Redactor(), label=model_id)
    return AdapterRegistry().create(entry, env)


def still_running(pattern: str) -> list[str]:
    """Pids of processes whose command line contains `pattern` (pgrep itself failing is a test failure)."""
    result = subprocess.run(["pgrep", "-f", "--", pattern], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return result.stdout.split()


# The API each agent CLI speaks to the mock when a test names none, and each adapter's model id.
DEFAULT_API = {"pi-cli": "anthropic-messages", "opencode-cli": "openai-completions"}
MODELS = {"claude-cli": "claude-mock-model", "pi-cli": "pi-mock-model", "opencode-cli": "oc-mock-model",
          "codex-cli": "codex-mock-model", "gemini-cli": "gemini-mock-model"}  # fmt: skip
# The CLIs whose adapter has no `provider` or `api` setting: the one wire format each speaks (Codex: the
# OpenAI Responses API, under /v1; Gemini CLI: the Gemini API, whose paths start with /v1beta).
ONE_API = {"claude-cli": "", "codex-cli": "/v1", "gemini-cli": ""}


def adapter_for(kind: str, mock: Any, user: UserSetup, api: str | None = None, **settings: object) -> Any:
    """The adapter `kind` (anthropic, openai, claude-cli, pi-cli, opencode-cli, codex-cli, gemini-cli) talking to `mock` with the
    user's key: the HTTP adapters directly, each CLI wrapped into the mock's network namespace."""
    environ = user.environ(**{KEY_VAR: user.key})
    if kind in ("anthropic", "openai"):
        url = mock.base_url + ("/v1" if kind == "openai" else "")
        return make_adapter(kind, "http-mock-model", user, environ, baseUrl=url, apiKeyEnv=KEY_VAR, **settings)
    name = kind.removesuffix("-cli")
    api = api or DEFAULT_API.get(kind)
    wrapped = mock.wrap(cli_path(name), str(user.tmp.parent), f"{name}-in-netns")
    url = mock.base_url + ("/v1" if api == "openai-completions" else ONE_API.get(kind, ""))
    extra: dict[str, object] = {"provider": "mock", "api": api} if api else {}
    extra.update({k: settings.pop(k) for k in ("provider",) if k in settings})
    return make_adapter(
        kind, MODELS[kind], user, environ, bin=wrapped, baseUrl=url, apiKeyEnv=KEY_VAR, **extra, **settings
    )
