"""The `codex-cli` adapter: `codex exec --json`, one call with every tool off, isolated from the user's
Codex setup.

Codex reaches a model only through a provider of its config over the Responses API; each call names a
provider of skill-be's own with `-c` (the base URL, the key's variable, retries off). Each call gets
a fresh CODEX_HOME (no config, AGENTS.md, login or skills of the user's), a TMPDIR outside it, an
empty working directory, its own instructions file in place of Codex's coding prompt, the tools
switched off by feature (`--disable shell_tool`, `unified_exec`, ...), a read-only sandbox for
whatever is left, and no bundled skills, plugins, analytics, update check or web search. The prompt
goes on stdin. A stored Codex login is never read: a call needs a key (`apiKeyEnv`) unless its
`baseUrl` takes none."""

from __future__ import annotations

import json
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
    token_count,
)
from skill_be.proc import ProcessResult
from skill_be.project.config import AdapterEntry

PROVIDER = "skill-be"
KEY_VAR = "SKILL_BE_AGENT_API_KEY"  # the provider's env_key; the key itself is in the environment only
DEFAULT_BASE_URL = "https://api.openai.com/v1"
# The config the launch sets with -c (TOML values), besides the model and its provider.
CONFIG = (
    "skills.bundled.enabled=false",
    "project_doc_max_bytes=0",
    "analytics.enabled=false",
    "check_for_update_on_startup=false",
    'web_search="disabled"',
    "allow_login_shell=false",
)


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


def provider_config(base_url: str, keyed: bool = True) -> str:
    """The `-c` value of skill-be's own provider: the Responses API at `base_url`, Codex's retries off.
    Without a key (`keyed` False: a local server) no `env_key`: Codex then sends no key, where a named
    variable that is unset fails every call ("Missing environment variable")."""
    fields = {"name": toml_string(PROVIDER), "base_url": toml_string(base_url),
              **({"env_key": toml_string(KEY_VAR)} if keyed else {}),
              "wire_api": '"responses"', "request_max_retries": "0", "stream_max_retries": "0"}  # fmt: skip
    return f"model_providers.{PROVIDER}={{" + ",".join(f"{k}={v}" for k, v in fields.items()) + "}"


SPEC = CliSpec(
    name="codex-cli",
    default_bin="codex",
    package="@openai/codex",
)
# Every tool Codex 0.169.0 offers by default, by its feature name; what is left (request_user_input)
# cannot act.
NO_TOOLS = ("plugins", "shell_tool", "unified_exec", "multi_agent", "goals", "view_image", "image_generation",
            "sleep_tool", "tool_suggest", "skill_search", "apps")  # fmt: skip
# Inherited, these would point Codex at the user's setup or another host.
DROPPED_ENV = ("CODEX_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY", KEY_VAR)


def usage_of(usage: Mapping[str, object]) -> Usage:
    """A `turn.completed` event's tokens: `input_tokens` counts the cached ones, `cached_input_tokens`
    (reads of the provider's prompt cache) is a part of it; Codex reports no cache writes."""

    read = token_count(usage, "cached_input_tokens")
    return Usage(max(token_count(usage, "input_tokens"), read), token_count(usage, "output_tokens"), 0, read)


class CodexCliAdapter(CliAdapter):
    spec = SPEC

    def argv(self, exe: str, work: Path, instructions: Path, keyed: bool = True) -> list[str]:
        config = [f"model={json.dumps(self.entry.id)}", f"model_provider={PROVIDER}",
                  provider_config(self.base_url or DEFAULT_BASE_URL, keyed), *CONFIG,
                  f"model_instructions_file={json.dumps(str(instructions))}"]  # fmt: skip
        return [exe, "exec", "--json", "--ephemeral", "--skip-git-repo-check", "-s", "read-only", "-C", str(work),
                *[a for f in NO_TOOLS for a in ("--disable", f)], *[a for c in config for a in ("-c", c)]]  # fmt: skip

    def check_settings(self) -> None:
        super().check_settings()
        if self.key() is None and not self.base_url:
            raise self.entry.where.error(
                "codex-cli reads no stored Codex login (each call has a fresh CODEX_HOME); set apiKeyEnv to the "
                "variable that holds your OpenAI key"
            )

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        exe = self.executable()
        key = self.key()
        with call_dir(self.temp_root, "skill-be-codex-") as base:
            for d in ("work", "home/.codex", "tmp"):
                (base / d).mkdir(parents=True)
            instructions = base / "instructions.md"
            instructions.write_text(NO_TOOLS_NOTE + "\n", encoding="utf-8")
            extra: dict[str, str | None] = {"HOME": str(base / "home"), "CODEX_HOME": str(base / "home/.codex"),
                                            "TMPDIR": str(base / "tmp"), KEY_VAR: key}  # fmt: skip
            env = child_env(self.env.environ, extra, DROPPED_ENV)
            argv = self.argv(exe, base / "work", instructions, keyed=key is not None)
            result = await self.run(argv, prompt, base / "work", env)
        return self.read_events(result)

    def read_events(self, result: ProcessResult) -> Answer:
        text, usage = "", None
        for event in json_events(result.stdout):
            kind, item = event.get("type"), event.get("item")
            if kind == "turn.failed" or kind == "error":
                err = event.get("error")
                msg = err.get("message") if isinstance(err, dict) else event.get("message")
                raise self.failure(f"the model call failed: {msg or json.dumps(event)}")
            if kind == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
                text = str(item.get("text") or "")
            elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
                turn = usage_of(event["usage"])
                usage = turn if usage is None else usage + turn
        if result.returncode != 0:
            raise self.failure(f"exit code {result.returncode}", result)
        if not text.strip():
            raise self.failure("the answer is empty", result)
        return Answer(text=text.strip(), usage=usage)

    def describe(self) -> Mapping[str, object]:
        return {
            **self.describe_base(),
            "isolation": {
                "flags": [
                    "--ephemeral",
                    "--skip-git-repo-check",
                    "-s read-only",
                    *[f"--disable {f}" for f in NO_TOOLS],
                    *[f"-c {c}" for c in CONFIG],
                ],
                "env": ["CODEX_HOME (fresh per call)", "HOME", "TMPDIR"],
                "removedEnv": list(DROPPED_ENV),
                "instructions": "skill-be's no-tools note in place of Codex's coding prompt",
                "workingDir": "fresh empty temp dir per call",
                "retries": "off (request_max_retries=0, stream_max_retries=0)",
            },
        }


def create(entry: AdapterEntry, env: AdapterEnv) -> CodexCliAdapter:
    return CodexCliAdapter(entry, env)
