"""The `opencode-cli` adapter: `opencode run`, isolated through its environment (it has no flags for that)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, Usage
from skill_be.adapters.cli_common import (
    NO_TOOLS_NOTE,
    CliAdapter,
    CliSpec,
    call_dir,
    child_env,
    json_events,
    text_setting,
    token_count,
)
from skill_be.proc import ProcessResult
from skill_be.project.config import AdapterEntry

SPEC = CliSpec(
    name="opencode-cli",
    default_bin="opencode",
    package="opencode-ai",
)
AGENT = "skill-be"
# With a baseUrl the model is this provider's: never one opencode has built in, whose own loader would
# take over (its `openai` calls the Responses API of any SDK: "Z.responses is not a function").
OWN_PROVIDER = "skill-be"
# A port nothing listens on: opencode tries to install a plugin package from npm even with --pure.
LOOPBACK_REGISTRY = "http://127.0.0.1:9/"
FIXED_ENV = {
    "OPENCODE_DISABLE_PROJECT_CONFIG": "1",  # no project opencode.json, .opencode/ or AGENTS.md
    "OPENCODE_PURE": "1",  # no external plugins
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",  # no ~/.claude/CLAUDE.md or ~/.claude/skills
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DB": ":memory:",  # no transcript in the user's opencode.db
    "OPENCODE_DISABLE_MODELS_FETCH": "1",  # no catalogue download on every start
    "OPENCODE_DISABLE_SHARE": "1",
    "npm_config_registry": LOOPBACK_REGISTRY,
}
# Inherited, these would merge the user's config or permissions back in.
DROPPED_ENV = ("OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENCODE_PERMISSION", "NPM_CONFIG_REGISTRY")
# opencode retries a failed model request for about a minute with no setting to stop it; its error
# log line is the first sign, so the call stops there (`--print-logs` puts it on stderr).
STREAM_ERROR = re.compile(rb'level=ERROR .*message="stream error".*?error\.error="((?:[^"\\]|\\.)*)"')


def config_content(provider: str, model: str, base_url: str | None, api: str) -> str:
    agent = {
        "mode": "primary",
        "prompt": NO_TOOLS_NOTE,  # its whole system prompt, in place of opencode's coding prompt
        "tools": {"*": False},
        "permission": {"*": "deny"},
    }
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "mcp": {},
        "plugin": [],
        "instructions": [],
        "agent": {AGENT: agent},
    }
    if base_url:
        if api == "anthropic-messages":
            npm, url = "@ai-sdk/anthropic", base_url + "/v1"  # that SDK's base URL ends in /v1
        else:
            npm, url = "@ai-sdk/openai-compatible", base_url
        config["provider"] = {
            provider: {"npm": npm, "name": provider, "options": {"baseURL": url}, "models": {model: {}}}
        }
    return json.dumps(config)


def step_usage(tokens: Mapping[str, object]) -> Usage:
    """A `step_finish` part's tokens: fresh input, cache reads and writes make the prompt; reasoning
    counts as output."""
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    written, read = token_count(cache, "write"), token_count(cache, "read")
    out = token_count(tokens, "output") + token_count(tokens, "reasoning")
    return Usage(token_count(tokens, "input") + written + read, out, written, read)


class OpencodeCliAdapter(CliAdapter):
    spec = SPEC

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        self.provider = text_setting(entry, "provider", "")  # required: its model checked it is there
        self.api = text_setting(entry, "api", "openai-completions")
        self.model_provider = OWN_PROVIDER if self.base_url else self.provider  # the <provider> of -m

    def argv(self, exe: str, work: Path) -> list[str]:
        return [
            exe, "run", "-m", f"{self.model_provider}/{self.entry.id}", "--agent", AGENT, "--title", "skill-be",
            "--pure", "--format", "json", "--dir", str(work), "--print-logs", "--log-level", "ERROR",
        ]  # fmt: skip

    def environment(self, base: Path, key: str | None) -> dict[str, str]:
        dirs = {name: base / name for name in ("config", "state", "cache", "data")}
        for d in dirs.values():
            d.mkdir()
        extra: dict[str, str | None] = {
            **FIXED_ENV,
            "XDG_CONFIG_HOME": str(dirs["config"]),  # an empty global config dir
            "XDG_STATE_HOME": str(dirs["state"]),
            "XDG_CACHE_HOME": str(dirs["cache"]),
            # opencode reads <home>/.opencode and takes <home> from this before the real home.
            "OPENCODE_TEST_HOME": str(base),
            "OPENCODE_CONFIG_CONTENT": config_content(self.model_provider, self.entry.id, self.base_url, self.api),
        }
        if key:
            # The only login for this call; the data dir (stored logins, the log file) can then be ours too.
            extra["OPENCODE_AUTH_CONTENT"] = json.dumps({self.model_provider: {"type": "api", "key": key}})
            extra["XDG_DATA_HOME"] = str(dirs["data"])
        return child_env(self.env.environ, extra, DROPPED_ENV)

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        exe = self.executable()
        key = self.key()
        api_error: list[str] = []

        def watch(stream: str, line: bytes) -> bool:
            m = STREAM_ERROR.search(line) if stream == "stderr" else None
            if m:
                api_error.append(m.group(1).decode("utf-8", errors="replace").replace('\\"', '"'))
            return m is not None

        with call_dir(self.temp_root, "skill-be-opencode-") as base:
            work = base / "work"
            work.mkdir()
            env = self.environment(base, key)
            result = await self.run(self.argv(exe, work), prompt, work, env, watch=watch)
        if result.stopped:
            raise self.failure(f"the model call failed: {api_error[0] if api_error else 'stream error'}")
        return self.read_events(result)

    def read_events(self, result: ProcessResult) -> Answer:
        texts: list[str] = []
        usage = Usage(0, 0)
        seen_tokens = False
        for event in json_events(result.stdout):
            kind = event.get("type")
            part = event.get("part") if isinstance(event.get("part"), dict) else {}
            assert isinstance(part, dict)
            if kind == "error":
                err = event.get("error")
                data = err.get("data") if isinstance(err, dict) else None
                msg = (data.get("message") if isinstance(data, dict) else None) or (
                    err.get("name") if isinstance(err, dict) else None
                )
                raise self.failure(f"error event: {msg or json.dumps(err)}")
            if kind == "text":
                texts.append(str(part.get("text") or ""))
            elif kind == "step_finish" and isinstance(part.get("tokens"), dict):
                usage += step_usage(part["tokens"])
                seen_tokens = True
        text = "\n".join(t for t in texts if t.strip()).strip()
        if result.returncode != 0:
            raise self.failure(f"exit code {result.returncode}", result)
        if not text:
            raise self.failure("the answer is empty", result)
        return Answer(text=text, usage=usage if seen_tokens else None)

    def describe(self) -> Mapping[str, object]:
        return {
            **self.describe_base(),
            "provider": self.provider,
            "isolation": {
                "flags": ["--agent", AGENT, "--title", "skill-be", "--pure"],
                "env": [
                    *sorted([*FIXED_ENV, "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "OPENCODE_TEST_HOME"]),
                    "OPENCODE_CONFIG_CONTENT (tools-off agent)",
                ],
                "removedEnv": list(DROPPED_ENV),
                "dataDir": "fresh per call" if self.credential() != "stored login" else "the user's (stored login)",
                "workingDir": "fresh empty temp dir per call",
                "retries": "stopped at opencode's first stream error",
            },
        }


def create(entry: AdapterEntry, env: AdapterEnv) -> OpencodeCliAdapter:
    return OpencodeCliAdapter(entry, env)
