"""The `claude-cli` adapter: `claude -p --model <id>`, isolated from the user's Claude Code setup."""

from __future__ import annotations

import json
from collections.abc import Mapping

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, Usage
from skill_be.adapters.cli_common import NO_TOOLS_NOTE, CliAdapter, CliSpec, call_dir, child_env
from skill_be.project.config import AdapterEntry

SPEC = CliSpec(
    name="claude-cli",
    default_bin="claude",
    package="@anthropic-ai/claude-code",
)

ISOLATION_FLAGS = (
    "--setting-sources", "",  # no user, project or local settings, so no CLAUDE.md, hooks or plugins
    "--strict-mcp-config",  # no MCP servers, connectors included
    "--disable-slash-commands",  # no skills or slash commands in the system prompt
    "--tools", "",  # no tools at all
    "--append-system-prompt", NO_TOOLS_NOTE,
    "--no-session-persistence",  # no transcript per call
)  # fmt: skip

ISOLATION_ENV = {
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",  # auto memory would load whatever the setting sources say
    # Without this every call waits seconds on lookups of api.anthropic.com (measured: 5.8-8 s vs 0.5 s).
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    # An API error is an error for that output; the CLI's own retries would take minutes.
    "CLAUDE_CODE_MAX_RETRIES": "0",
}


def usage_of(result: Mapping[str, object]) -> Usage | None:
    """The result event's tokens. Prompt tokens include cached ones (what the skill adds to a prompt
    counts whether cached or not); the cache's writes and reads are kept apart for pricing."""
    per_model = result.get("modelUsage")
    if isinstance(per_model, dict) and per_model:
        rows = [m for m in per_model.values() if isinstance(m, dict)]
        keys = ("inputTokens", "outputTokens", "cacheCreationInputTokens", "cacheReadInputTokens")
    elif isinstance(usage := result.get("usage"), dict):
        rows = [usage]
        keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    else:
        return None
    total = Usage(0, 0)
    for m in rows:
        fresh, out, written, read = (int(m.get(k) or 0) for k in keys)
        total += Usage(fresh + written + read, out, written, read)
    return total


def parse_result(stdout: bytes) -> dict[str, object] | None:
    """The `--output-format json` result object; warnings may come before it."""
    for line in reversed(stdout.decode("utf-8", errors="replace").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("type") == "result":
                return data
    return None


class ClaudeCliAdapter(CliAdapter):
    spec = SPEC

    def argv(self, exe: str) -> list[str]:
        return [exe, "-p", "--model", self.entry.id, *ISOLATION_FLAGS, "--output-format", "json"]

    def environment(self, key: str | None) -> dict[str, str]:
        extra: dict[str, str | None] = dict(ISOLATION_ENV)
        if key:
            extra["ANTHROPIC_API_KEY"] = key
        if self.base_url:
            extra["ANTHROPIC_BASE_URL"] = self.base_url
        return child_env(self.env.environ, extra)

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        exe = self.executable()
        env = self.environment(self.key())
        # A fresh, empty directory: in a git repository claude would put branch and commit messages in its prompt.
        with call_dir(self.temp_root, "skill-be-claude-") as cwd:
            result = await self.run(self.argv(exe), prompt, cwd, env)
        data = parse_result(result.stdout)
        if data is None:
            if result.returncode != 0:
                raise self.failure(f"exit code {result.returncode}", result)
            raise self.failure("printed no JSON result", result)
        text = str(data.get("result") or "").strip()
        if data.get("is_error") or result.returncode != 0:
            status = data.get("api_error_status")
            what = f"exit code {result.returncode}" + (f", API status {status}" if status else "")
            raise self.failure(f"{what}: {text}" if text else what, None if text else result)
        if not text:
            raise self.failure("the answer is empty", result)
        meta: dict[str, object] = {"truncated": True} if result.truncated else {}
        return Answer(text=text, usage=usage_of(data), meta=meta)

    def describe(self) -> Mapping[str, object]:
        return {
            **self.describe_base(),
            "isolation": {
                "flags": [f for f in ISOLATION_FLAGS if f.startswith("--")],
                "env": sorted(ISOLATION_ENV),
                "workingDir": "fresh empty temp dir per call",
            },
        }


def create(entry: AdapterEntry, env: AdapterEnv) -> ClaudeCliAdapter:
    return ClaudeCliAdapter(entry, env)
