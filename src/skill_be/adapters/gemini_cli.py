"""The `gemini-cli` adapter: Gemini CLI (`gemini`, @google/gemini-cli 0.61.0), one non-interactive call
(`-o stream-json`) with every tool off, isolated from the user's Gemini setup.

Gemini CLI speaks the Gemini API (`POST {baseUrl}/v1beta/models/<model>:streamGenerateContent?alt=sse`,
the key in `x-goog-api-key`): the call sets `GOOGLE_GEMINI_BASE_URL` (without `baseUrl`, Google's own
host) and `GEMINI_API_KEY`, and names the model with `-m` (its default, `auto`, first asks a
classifier model which model to use). Each call gets a fresh HOME whose `.gemini/settings.json`
selects API-key auth (without it Gemini exits 41), switches skills off, turns usage statistics off
(its one request to another host), makes one attempt per request (`general.maxAttempts`; its default
is 10 with backoff) and allows no tool (`tools.core` naming a tool that does not exist: Gemini then
declares none); a system settings file of its own (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`, so nothing of
/etc/gemini-cli applies); skill-be's no-tools note in place of Gemini's coding prompt
(`GEMINI_SYSTEM_MD`); a fresh empty working directory (no GEMINI.md: no setting hides one, only a
home and a folder without it); extensions off (`-e none`); the folder trusted for this run
(`--skip-trust`; an untrusted folder exits 55). The prompt goes on stdin. A stored Gemini login is
never read: a call needs a key (`apiKeyEnv`) unless its `baseUrl` takes none.
"""

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

SPEC = CliSpec(
    name="gemini-cli",
    default_bin="gemini",
    package="@google/gemini-cli",
)
KEY_VAR = "GEMINI_API_KEY"
URL_VAR = "GOOGLE_GEMINI_BASE_URL"
NO_KEY = "skill-be-no-key"  # Gemini refuses to start without a key; a baseUrl that takes none gets this
FLAGS = ("-o", "stream-json", "--skip-trust", "-e", "none")
# What every run's settings.json holds: API-key auth, no usage statistics, one attempt per request.
BASE_SETTINGS: Mapping[str, object] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"maxAttempts": 1, "enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
NO_TOOLS = ("skill-be-no-tools",)  # tools.core: an allowlist naming no tool of Gemini's
# Inherited, these would point Gemini at the user's setup, another host or another way of signing in.
DROPPED_ENV = (
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL", "GEMINI_CLI_HOME",
    "GEMINI_SYSTEM_MD", "GEMINI_WRITE_SYSTEM_MD", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_MODEL",
    "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS", "GEMINI_SANDBOX", "GEMINI_CLI_TRUST_WORKSPACE",
)  # fmt: skip


def one_shot_settings() -> dict[str, object]:
    return {**BASE_SETTINGS, "skills": {"enabled": False}, "tools": {"core": list(NO_TOOLS)},
            "context": {"memoryBoundaryMarkers": []}}  # fmt: skip


def usage_of(stats: Mapping[str, object]) -> Usage:
    """The `result` event's `stats`: `input_tokens` is the whole prompt, `cached` the part the
    provider's implicit cache served (Gemini CLI reports reads only, no writes)."""

    tin = token_count(stats, "input_tokens")
    return Usage(tin, token_count(stats, "output_tokens"), 0, min(token_count(stats, "cached"), tin))


class GeminiCliAdapter(CliAdapter):
    spec = SPEC

    def argv(self, exe: str) -> list[str]:
        return [exe, "-m", self.entry.id, *FLAGS, "--approval-mode", "default"]

    async def preflight(self) -> None:
        await super().preflight()
        if self.key() is None and not self.base_url:
            raise self.entry.where.error(
                "gemini-cli reads no stored Gemini login (each call has a fresh HOME); set apiKeyEnv to the "
                "variable that holds your Gemini API key"
            )

    def environment(self, base: Path, key: str | None) -> dict[str, str]:
        home = base / "home"
        (home / ".gemini").mkdir(parents=True)
        (base / "tmp").mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps(one_shot_settings()) + "\n", encoding="utf-8")
        (base / "system-settings.json").write_text("{}\n", encoding="utf-8")
        (base / "system.md").write_text(NO_TOOLS_NOTE + "\n", encoding="utf-8")
        extra: dict[str, str | None] = {
            "HOME": str(home), "TMPDIR": str(base / "tmp"), KEY_VAR: key or NO_KEY, URL_VAR: self.base_url,
            "GEMINI_SYSTEM_MD": str(base / "system.md"),
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(base / "system-settings.json"), "NO_COLOR": "1",
        }  # fmt: skip
        return child_env(self.env.environ, extra, DROPPED_ENV)

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        exe = self.executable()
        key = self.key()
        with call_dir(self.temp_root, "skill-be-gemini-") as base:
            (base / "work").mkdir()
            env = self.environment(base, key)
            result = await self.run(self.argv(exe), prompt, base / "work", env)
        return self.read_events(result)

    def read_events(self, result: ProcessResult) -> Answer:
        text, usage = "", None
        for event in json_events(result.stdout):
            kind = event.get("type")
            if kind == "message" and event.get("role") == "assistant":
                text += str(event.get("content") or "")
            elif kind == "result":
                if event.get("status") != "success":
                    err = event.get("error")
                    msg = err.get("message") if isinstance(err, dict) else None
                    raise self.failure(f"the model call failed: {msg or json.dumps(event.get('error'))}")
                stats = event.get("stats")
                if isinstance(stats, dict):
                    usage = usage_of(stats)
        if result.returncode != 0:
            raise self.failure(f"exit code {result.returncode}", result)
        if not text.strip():
            raise self.failure("the answer is empty", result)
        return Answer(text=text.strip(), usage=usage)

    def describe(self) -> Mapping[str, object]:
        return {
            **self.describe_base(),
            "isolation": {
                "flags": [*FLAGS, "--approval-mode default"],
                "settings": one_shot_settings(),
                "env": [
                    "HOME (fresh per call)",
                    "TMPDIR",
                    "GEMINI_SYSTEM_MD (skill-be's no-tools note)",
                    "GEMINI_CLI_SYSTEM_SETTINGS_PATH (empty)",
                ],
                "removedEnv": list(DROPPED_ENV),
                "workingDir": "fresh empty temp dir per call",
                "retries": "off (general.maxAttempts=1)",
            },
        }


def create(entry: AdapterEntry, env: AdapterEnv) -> GeminiCliAdapter:
    return GeminiCliAdapter(entry, env)
