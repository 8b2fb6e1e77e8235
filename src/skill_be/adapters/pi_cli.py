"""The `pi-cli` adapter: `pi -p --provider <p> --model <id>`, isolated from the user's pi setup.

pi versions differ in which isolation flags they know (0.73.1 rejects --no-mcp and --no-approve), so the
flags come from `pi --help`, read once. Every call also runs in a fresh, empty working directory with
a private agent directory (PI_CODING_AGENT_DIR), which covers what a missing flag would have covered:
no project-local .pi/ files, no global settings, SYSTEM.md, AGENTS.md, extensions, skills or MCP
configuration. What was applied is recorded by describe(), which goes to summary.json."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, Usage
from skill_be.adapters.cli_common import (
    NO_TOOLS_NOTE,
    CliAdapter,
    CliSpec,
    call_dir,
    child_env,
    text_setting,
    token_count,
)
from skill_be.proc import run_process
from skill_be.project.config import AdapterEntry

SPEC = CliSpec(
    name="pi-cli",
    default_bin="pi",
    package="@mariozechner/pi-coding-agent",
)

# Without these a call is not isolated at all: a pi that lacks one cannot be used.
REQUIRED_FLAGS = ("--provider", "--model", "--thinking", "--no-tools", "--no-session", "--system-prompt")
# The reference's isolation flags, passed when this pi knows them; the private agent directory and the
# empty working directory stand in for each one that is missing.
ISOLATION_FLAGS = (
    "--no-tools", "--no-mcp", "--no-skills", "--no-extensions", "--no-prompt-templates", "--no-themes",
    "--no-context-files", "--no-approve", "--no-session",
)  # fmt: skip
STAND_IN = {
    "--no-mcp": "private agent dir and --no-extensions: no MCP configuration or extension can load",
    "--no-approve": "fresh empty working dir: there are no project-local .pi/ files to approve",
    "--no-skills": "private agent dir and empty working dir: no skills to discover",
    "--no-extensions": "private agent dir and empty working dir: no extensions to discover",
    "--no-prompt-templates": "private agent dir and empty working dir: no prompt templates",
    "--no-themes": "private agent dir: no themes",
    "--no-context-files": "private agent dir and empty working dir: no AGENTS.md or CLAUDE.md nearby",
}
SETTINGS = {
    # A failed call is an error for that output: neither pi's agent-level nor the SDK's retries.
    "retry": {"enabled": False, "provider": {"maxRetries": 0}},
    "quietStartup": True,
    "enableInstallTelemetry": False,
}


def help_flags(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def _remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def message_usage(usage: Mapping[str, object]) -> Usage:
    """An assistant message's `usage`: fresh input, cache reads and cache writes make the prompt."""

    written, read = token_count(usage, "cacheWrite"), token_count(usage, "cacheRead")
    return Usage(token_count(usage, "input") + written + read, token_count(usage, "output"), written, read)


class PiCliAdapter(CliAdapter):
    spec = SPEC

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        self.provider = text_setting(entry, "provider", "")  # required: its model checked it is there
        self.thinking = text_setting(entry, "thinking", "off")
        self.api = text_setting(entry, "api", "openai-completions")
        self._flags: frozenset[str] | None = None
        self._flags_lock = asyncio.Lock()
        self._agent_dir: Path | None = None

    # -- what this pi supports ----------------------------------------------------------------------
    async def supported_flags(self) -> frozenset[str]:
        async with self._flags_lock:
            if self._flags is None:
                exe = self.executable()
                result = await asyncio.wait_for(run_process([exe, "--help"], env=self.env.environ), 30)
                flags = help_flags(
                    result.stdout.decode("utf-8", errors="replace") + result.stderr.decode("utf-8", "replace")
                )
                missing = [f for f in REQUIRED_FLAGS if f not in flags]
                if missing:
                    raise self.start_error(
                        f"this pi lacks {', '.join(missing)}, which skill-be needs to isolate a call; "
                        "use pi 0.73.1 or later"
                    )
                self._flags = flags
            return self._flags

    async def preflight_start(self) -> None:
        await super().preflight_start()
        await self.supported_flags()

    # -- the private agent directory ------------------------------------------------------------------
    def user_agent_dir(self) -> Path:
        configured = self.env.environ.get("PI_CODING_AGENT_DIR")
        if configured:
            return Path(os.path.expanduser(configured))
        return Path(self.env.environ.get("HOME") or os.path.expanduser("~")) / ".pi" / "agent"

    def agent_dir(self, key: str | None) -> Path:
        """One per adapter, shared by its calls (so pi's lock on auth.json works across them), removed
        when the adapter goes. It holds our settings, and only the user's credentials and providers."""
        if self._agent_dir is not None:
            return self._agent_dir
        path = Path(tempfile.mkdtemp(prefix="skill-be-pi-agent-", dir=self.temp_root))
        weakref.finalize(self, _remove, str(path))
        (path / "settings.json").write_text(json.dumps(SETTINGS, indent=2) + "\n", encoding="utf-8")
        user = self.user_agent_dir()
        if self.base_url:
            (path / "models.json").write_text(json.dumps(self.models_json(), indent=2) + "\n", encoding="utf-8")
        elif (user / "models.json").is_file():
            (path / "models.json").symlink_to(user / "models.json")
        # Without a key pi uses its stored login: link (never copy) the user's auth.json, so refreshed
        # tokens are written back to it and no credential is copied into a file of ours.
        if key is None and (user / "auth.json").is_file():
            (path / "auth.json").symlink_to(user / "auth.json")
        self._agent_dir = path
        return path

    def models_json(self) -> dict[str, object]:
        var = self.entry.settings.get("apiKeyEnv")
        # models.json wants an apiKey; naming the variable keeps the key itself out of the file.
        return {
            "providers": {
                self.provider: {
                    "baseUrl": self.base_url,
                    "api": self.api,
                    "apiKey": var if isinstance(var, str) else "skill-be-no-key",
                    "models": [{"id": self.entry.id}],
                }
            }
        }

    # -- a call ---------------------------------------------------------------------------------------
    def argv(self, exe: str, flags: frozenset[str], key: str | None) -> list[str]:
        argv = [exe, "-p", "--provider", self.provider, "--model", self.entry.id, "--thinking", self.thinking]
        argv += [f for f in ISOLATION_FLAGS if f in flags]
        if "--offline" in flags:
            argv.append("--offline")
        argv += ["--system-prompt", NO_TOOLS_NOTE]
        if "--append-system-prompt" in flags:
            argv += ["--append-system-prompt", ""]  # given at all, it stops pi reading APPEND_SYSTEM.md
        if "--mode" in flags:
            argv += ["--mode", "json"]
        if key:
            argv += ["--api-key", key]
        return argv

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        flags = await self.supported_flags()
        exe = self.executable()
        key = self.key()
        env = child_env(self.env.environ, {"PI_CODING_AGENT_DIR": str(self.agent_dir(key)), "PI_OFFLINE": "1"})
        with call_dir(self.temp_root, "skill-be-pi-") as cwd:
            result = await self.run(self.argv(exe, flags, key), prompt, cwd, env)
        if result.returncode != 0:
            raise self.failure(f"exit code {result.returncode}", result)
        out = result.stdout.decode("utf-8", errors="replace")
        if "--mode" not in flags:
            if not out.strip():
                raise self.failure("the answer is empty", result)
            return Answer(text=out.strip())
        return self.read_events(out)

    def read_events(self, out: str) -> Answer:
        """The answer and tokens from the `--mode json` events: the assistant messages of agent_end."""
        messages: list[dict[str, object]] = []
        for line in out.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") == "agent_end":
                messages = [m for m in event.get("messages") or [] if isinstance(m, dict)]
        replies = [m for m in messages if m.get("role") == "assistant"]
        if not replies:
            raise self.failure("no assistant message in pi's JSON events")
        last = replies[-1]
        if last.get("stopReason") in ("error", "aborted"):
            raise self.failure(f"the model call failed: {last.get('errorMessage') or last.get('stopReason')}")
        content = last.get("content")
        parts = content if isinstance(content, list) else []
        text = "".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text")
        if not text.strip():
            raise self.failure("the answer is empty")
        usage = Usage(0, 0)
        for m in replies:
            u = m.get("usage")
            if isinstance(u, dict):
                usage += message_usage(u)
        return Answer(text=text.strip(), usage=usage)

    def describe(self) -> Mapping[str, object]:
        out: dict[str, object] = {**self.describe_base(), "provider": self.provider, "thinking": self.thinking}
        if self._flags is None:
            out["isolation"] = "not checked yet (pi --help is read before the first call)"
            return out
        missing = [f for f in ISOLATION_FLAGS if f not in self._flags]
        out["isolation"] = {
            "flags": [f for f in ISOLATION_FLAGS if f in self._flags]
            + [f for f in ("--offline", "--append-system-prompt") if f in self._flags],
            "missingFlags": {f: STAND_IN.get(f, "") for f in missing},
            "agentDir": "private per run: skill-be's settings (retries off), the user's auth.json and "
            "models.json linked in (or a generated models.json with baseUrl)",
            "workingDir": "fresh empty temp dir per call",
            "env": ["PI_CODING_AGENT_DIR", "PI_OFFLINE"],
        }
        return out


def create(entry: AdapterEntry, env: AdapterEnv) -> PiCliAdapter:
    return PiCliAdapter(entry, env)
