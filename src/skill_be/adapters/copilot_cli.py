"""The `copilot-cli` adapter: GitHub Copilot CLI (`copilot`, @github/copilot 1.0.102) with a model of
the user's own provider (BYOK: `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_API_KEY`,
`COPILOT_MODEL`) in offline mode, so it needs no GitHub login and makes no other request.

Isolation: a fresh HOME and COPILOT_HOME per call (no stored settings, sessions, skills, agents or
MCP configuration of the user's), the built-in skills disabled in that home's settings, no custom
instructions (AGENTS.md and the like), no built-in MCP servers, no auto-update, a fresh empty
working directory, and no tools at all (`--available-tools` naming a tool that does not exist).
Copilot's own system prompt cannot be replaced from the command line: a one-shot call gets it.

The prompt goes on stdin (Copilot CLI takes piped stdin as the prompt of a non-interactive run), the
answer is the last `assistant.message` of the `--output-format json` events, and the tokens come from
the `--usage-output-file` file (the events carry none).

Copilot CLI is one binary that unpacks about 235 MB into `$XDG_CACHE_HOME/copilot/` on its first
start. Every call and agent run shares one such cache (`cache_dir()`): skill-be's image ships it
unpacked at build time (read-only); on this machine it is `<skill-be cache>/copilot`, filled once.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from skill_be.adapters.base import AdapterEnv, Answer, CallContext, Usage
from skill_be.adapters.cli_common import CliAdapter, CliSpec, call_dir, child_env, text_setting
from skill_be.proc import LineWatcher
from skill_be.project.config import AdapterEntry

SPEC = CliSpec(
    name="copilot-cli",
    default_bin="copilot",
    package="@github/copilot",
)
# The provider's own host when no baseUrl is given (BYOK always needs a base URL).
DEFAULT_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
FLAGS = (
    "--allow-all-tools",  # required for a non-interactive run; with no tools it allows nothing
    "--output-format", "json",
    "--no-auto-update",
    "--no-custom-instructions",  # no AGENTS.md, .github/copilot-instructions.md, ...
    "--disable-builtin-mcps",
    "--no-ask-user",
)  # fmt: skip
NO_TOOLS = ("--available-tools=skill-be-no-tools",)  # an empty list means "all"; an unknown name, none
FIXED_ENV = {
    "COPILOT_OFFLINE": "true",  # no GitHub login, telemetry, web tools or update checks
    "COPILOT_AUTO_UPDATE": "false",
    "NO_COLOR": "1",
}
BUILTIN_SKILLS = ("customize-cloud-agent", "github-pr-media")  # offered in every run unless disabled
# Inherited, these would bring the user's login, provider or home back in.
DROPPED_ENV = (
    "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_HOME", "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_API_KEY_COMMAND", "COPILOT_PROVIDER_HEADERS", "COPILOT_PROVIDER_WIRE_API",
    "COPILOT_PROVIDER_TYPE", "COPILOT_PROVIDER_MODEL_ID", "COPILOT_PROVIDER_WIRE_MODEL",
    "COPILOT_CUSTOM_INSTRUCTIONS_DIRS", "COPILOT_ALLOW_ALL", "COPILOT_SKILLS_DIRS",
)  # fmt: skip
# Copilot's event for a failed model request; group 1 is the HTTP status.
CALL_FAILURE = re.compile(rb'"type":"model\.call_failure".*?"statusCode":(\d+)')
FIRST_START_TIMEOUT = 120.0  # seconds: the first `--version` unpacks 235 MB (7-15 s here, more on a busy machine)
IMAGE_CACHE = "/opt/agent-clis/copilot-cache"  # the image's pre-warmed cache (the Dockerfile's clis stage)


def cache_dir(environ: Mapping[str, str]) -> Path:
    """The one Copilot cache on this machine: `$SKILL_BE_CACHE/copilot`, else
    `$XDG_CACHE_HOME/skill-be/copilot`, else `~/.cache/skill-be/copilot` (the rule of skill-be's
    other caches)."""
    if environ.get("SKILL_BE_CACHE"):
        return Path(os.path.expanduser(environ["SKILL_BE_CACHE"])) / "copilot"
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "skill-be" / "copilot"
    return Path(environ.get("HOME") or os.path.expanduser("~")) / ".cache" / "skill-be" / "copilot"


def settings(ignored_skill_dirs: list[str]) -> dict[str, object]:
    """The settings.json of a private COPILOT_HOME: the built-in skills off, and the skill folders
    Copilot must not read (the workspace's and its parents')."""
    return {"disabledSkills": list(BUILTIN_SKILLS), "ignoredSkillsLocations": ignored_skill_dirs}


def provider_env(wire: str, base_url: str | None, model: str, key: str | None) -> dict[str, str]:
    """The BYOK variables for a model of `wire` ("openai": chat completions, base URL ending in /v1;
    "anthropic": Messages, base URL without /v1)."""
    env = {"COPILOT_PROVIDER_BASE_URL": base_url or DEFAULT_URLS[wire], "COPILOT_MODEL": model}
    if wire == "anthropic":
        env["COPILOT_PROVIDER_TYPE"] = "anthropic"
    if key:
        env["COPILOT_PROVIDER_API_KEY"] = key
    return env


def usage_of(report: Mapping[str, object]) -> Usage | None:
    """Tokens from the usage file: every model's input (cache reads and writes included) and output."""
    metrics = report.get("modelMetrics")
    if not isinstance(metrics, dict) or not metrics:
        return None
    total = Usage(0, 0)
    for m in metrics.values():
        usage = m.get("usage") if isinstance(m, dict) else None
        if isinstance(usage, dict):
            fresh, out, written, read = (
                int(usage.get(k) or 0) for k in ("inputTokens", "outputTokens", "cacheWriteTokens", "cacheReadTokens")
            )
            total += Usage(fresh + written + read, out, written, read)
    return total


class CopilotCliAdapter(CliAdapter):
    spec = SPEC

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        super().__init__(entry, env)
        # Its model checked the words, api only with baseUrl, and baseUrl or provider given.
        self.api = text_setting(entry, "api", "openai-completions")
        self.provider = text_setting(entry, "provider", "openai")
        # The wire format: `api` where given, else the provider's.
        if "api" in entry.settings:
            self.wire = "anthropic" if self.api == "anthropic-messages" else "openai"
        else:
            self.wire = self.provider

    async def preflight_start(self) -> None:
        """`copilot --version` with the shared cache: the first start unpacks Copilot there, once,
        before any call (so calls that start together do not unpack it side by side)."""
        cache = cache_dir(self.env.environ)
        cache.mkdir(parents=True, exist_ok=True)
        extra = {**FIXED_ENV, "XDG_CACHE_HOME": str(cache)}
        await self.check_starts(child_env(self.env.environ, extra, DROPPED_ENV), FIRST_START_TIMEOUT)

    def argv(self, exe: str, usage: Path) -> list[str]:
        return [exe, *FLAGS, *NO_TOOLS, "--usage-output-file", str(usage)]

    def environment(self, base: Path, key: str | None) -> dict[str, str]:
        home = base / "home"
        (home / ".copilot").mkdir(parents=True)
        (home / ".copilot" / "settings.json").write_text(json.dumps(settings([])) + "\n", encoding="utf-8")
        cache = cache_dir(self.env.environ)
        cache.mkdir(parents=True, exist_ok=True)
        extra: dict[str, str | None] = {
            **FIXED_ENV, **provider_env(self.wire, self.base_url, self.entry.id, key),
            "HOME": str(home), "COPILOT_HOME": str(home / ".copilot"), "XDG_CACHE_HOME": str(cache),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
        }  # fmt: skip
        return child_env(self.env.environ, extra, DROPPED_ENV)

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        exe = self.executable()
        key = self.key()
        failed: list[str] = []
        with call_dir(self.temp_root, "skill-be-copilot-") as base:
            work = base / "work"
            work.mkdir()
            usage_file = base / "usage.json"
            env = self.environment(base, key)
            result = await self.run(self.argv(exe, usage_file), prompt, work, env, watch=self._watch(failed))
            try:
                report = json.loads(usage_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                report = {}
        if result.stopped:
            raise self.failure(f"the model call failed: {failed[0] if failed else 'an API error'}")
        return self.read_events(result.stdout.decode("utf-8", errors="replace"), result.returncode, report)

    @staticmethod
    def _watch(failed: list[str]) -> LineWatcher:
        """Stops the call at Copilot's first failed model request (it would retry it 5 times, about
        15 s, with no setting to stop that): an API error is an error of that output."""

        def watch(stream: str, line: bytes) -> bool:
            m = CALL_FAILURE.search(line) if stream == "stdout" else None
            if m:
                failed.append(f"HTTP {m.group(1).decode()}")
            return m is not None

        return watch

    def read_events(self, out: str, returncode: int, report: Mapping[str, object]) -> Answer:
        text = ""
        for line in out.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            data = event.get("data") if isinstance(event, dict) else None
            if not isinstance(data, dict):
                continue
            if event.get("type") == "session.error":
                raise self.failure(f"the model call failed: {data.get('message') or json.dumps(data)}")
            if event.get("type") == "assistant.message" and str(data.get("content") or "").strip():
                text = str(data["content"])
        if returncode != 0:
            raise self.failure(f"exit code {returncode}")
        if not text.strip():
            raise self.failure("the answer is empty")
        return Answer(text=text.strip(), usage=usage_of(report) if isinstance(report, dict) else None)

    def describe(self) -> Mapping[str, object]:
        return {
            **self.describe_base(),
            "wire": self.wire,
            "isolation": {
                "flags": [*FLAGS, *NO_TOOLS],
                "env": sorted([*FIXED_ENV, "HOME", "COPILOT_HOME", "XDG_CACHE_HOME (the shared Copilot cache)"]),
                "removedEnv": list(DROPPED_ENV),
                "disabledSkills": list(BUILTIN_SKILLS),
                "home": "fresh per call",
                "workingDir": "fresh empty temp dir per call",
            },
        }


def create(entry: AdapterEntry, env: AdapterEnv) -> CopilotCliAdapter:
    return CopilotCliAdapter(entry, env)
