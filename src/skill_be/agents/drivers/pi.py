"""pi (`pi` 0.73.1) as an agent: `pi -p --mode json`.

Where skills go: `<home>/skills/<name>/`, each passed with `--skill <dir>` while `--no-skills` turns
discovery off, so neither the workspace's `.pi/skills` / `.agents/skills` nor a parent's (pi looks
up to the git root) nor the user's are offered: the offered skills are exactly the installed ones.
pi offers them in an `<available_skills>` block of its system prompt, and only when the `read` tool is
on. Isolation: the one-shot adapter's settings (retries off) in a private agent dir
(PI_CODING_AGENT_DIR under <home>), `--no-extensions`, `--no-prompt-templates`, `--no-themes`,
`--no-context-files` (no AGENTS.md / CLAUDE.md, from the workspace or above), `--no-session`,
`--offline`.

A load: pi has no skill tool; the model calls `read {"path": "<home>/skills/<name>/SKILL.md"}` and the
`tool_execution_end` for it has `isError: false`.

Turn limit: pi has no flag for one. The launch loads a small extension (`-e`, allowed with
--no-extensions) that aborts the run when turn `maxTurns + 1` starts; the aborted last message after
`maxTurns` turns is read as the limit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePosixPath

from skill_be.adapters.pi_cli import ISOLATION_FLAGS, SETTINGS, message_usage
from skill_be.agents.drivers.base import AgentSetup, Launch, Transcript
from skill_be.agents.drivers.events import (
    DEFAULT_PATH,
    TranscriptBuilder,
    as_dict,
    events,
    skill_file_read,
    skill_files,
    text_of,
)
from skill_be.agents.drivers.limit import LIMIT_ERROR

DEFAULT_TOOLS = ("read", "write", "edit", "bash")
PROVIDER = "skill-be"  # the custom provider's name in models.json, when the endpoint has a base URL
KEY_VAR = "SKILL_BE_AGENT_API_KEY"  # models.json names this variable; the key itself is in the env only
APIS = {"openai": "openai-completions", "anthropic": "anthropic-messages"}
KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
# The adapter's flags, less those that do not apply to an agent: tools are on, skills are passed one
# by one after --no-skills, and pi 0.73.1 rejects --no-mcp and --no-approve.
FLAGS = tuple(f for f in ISOLATION_FLAGS if f not in ("--no-tools", "--no-skills", "--no-mcp", "--no-approve"))
LIMIT_EXTENSION = """// skill-be: pi has no --max-turns; abort the run when turn {max} + 1 starts.
const MAX_TURNS = {max};
export default function (pi: any) {{
  pi.on("turn_start", async (event: any, ctx: any) => {{
    if (event.turnIndex >= MAX_TURNS) ctx.abort();
  }});
}}
"""


def _safe_prompt(prompt: str) -> str:
    """pi has no `--`: a prompt starting with - would be an option and one with @ a file to include."""
    return " " + prompt if prompt.startswith(("-", "@")) else prompt


class PiDriver:
    name = "pi"
    providers: tuple[str, ...] = ("openai", "anthropic")
    # A trigger call needs no write, edit or shell: the agent may look around and load a skill.
    trigger_tools: tuple[str, ...] = ("read",)
    resumes = True  # followUps: the session kept in <home>/.pi/sessions, --continue on each follow-up
    # expect.tools' shared names (grep, find, ls keep their own). pi has no skill tool: a load is a `read`
    # of SKILL.md (expect.skillsLoaded sees it).
    tool_names: Mapping[str, str] = {"bash": "shell", "read": "read", "write": "write", "edit": "edit"}

    def __init__(self, bin: str = "pi", path: str = DEFAULT_PATH) -> None:
        self.bin = bin
        self.path = path

    def tools(self, setup: AgentSetup) -> list[str]:
        return list(setup.tools) if setup.tools is not None else list(DEFAULT_TOOLS)

    def models_json(self, setup: AgentSetup) -> dict[str, object]:
        model: dict[str, object] = {"id": setup.endpoint.model}
        if setup.limits.max_tokens is not None:
            model["maxTokens"] = setup.limits.max_tokens  # per model response
        provider = {"baseUrl": setup.endpoint.base_url, "api": APIS[setup.endpoint.provider],
                    "apiKey": KEY_VAR, "models": [model]}  # fmt: skip
        return {"providers": {PROVIDER: provider}}

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        ep = setup.endpoint
        if ep.provider not in APIS:
            raise ValueError(f'pi speaks the openai or anthropic API, not "{ep.provider}"')
        agent_dir = home / ".pi" / "agent"
        skills_dir = home / "skills"
        limit = home / ".pi" / "skill-be-turn-limit.ts"
        files = skill_files(skills_dir, setup.skills)
        files[agent_dir / "settings.json"] = json.dumps(SETTINGS, indent=2).encode() + b"\n"
        files[limit] = LIMIT_EXTENSION.format(max=int(setup.limits.max_turns)).encode()
        env = {"HOME": str(home), "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1",
               "PATH": self.path, "LANG": "C.UTF-8"}  # fmt: skip
        provider = ep.provider
        if ep.base_url:
            files[agent_dir / "models.json"] = json.dumps(self.models_json(setup), indent=2).encode() + b"\n"
            provider = PROVIDER
            if ep.api_key:
                env[KEY_VAR] = ep.api_key
        elif ep.api_key:
            env[KEY_VARS[ep.provider]] = ep.api_key
        # Follow-ups continue the session, kept in the private home; without them nothing is kept.
        flags = [f for f in FLAGS if f != "--no-session"] if setup.follow_ups else list(FLAGS)
        sessions = ["--session-dir", str(home / ".pi" / "sessions")] if setup.follow_ups else []
        base = [self.bin, "-p", "--mode", "json", "--provider", provider, "--model", ep.model, "--thinking", "off",
                "--no-skills", *[a for s in setup.skills for a in ("--skill", str(skills_dir / s.name))],
                *flags, *sessions, "-e", str(limit), "--offline", "--tools", ",".join(self.tools(setup))]  # fmt: skip
        then = [[*base, "--continue", _safe_prompt(text)] for text in setup.follow_ups]
        return Launch(argv=[*base, _safe_prompt(setup.prompt)], env=env, files=files, cwd=workspace, then=then)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = TranscriptBuilder(setup)
        # Discovery is off and each skill is passed by path: pi offers exactly these, when read is on.
        t.offered = [s.name for s in setup.skills] if "read" in self.tools(setup) else []
        cost = 0.0
        for event in events(stdout):
            kind = event.get("type")
            message = as_dict(event.get("message"))
            if kind == "message_end" and message.get("role") == "assistant":
                cost += self._assistant(t, message)
            elif kind == "tool_execution_end":
                call_id = str(event.get("toolCallId"))
                is_error = bool(event.get("isError"))
                t.result(call_id, text_of(as_dict(event.get("result")).get("content")), is_error)
                i = t.by_id.get(call_id)
                if i is not None and not is_error and t.calls[i].name == "read":
                    name = skill_file_read(t.calls[i].arguments.get("path"), setup.skills)
                    if name:
                        t.mark_loaded(name, t.calls[i].turn)
        t.cost_usd = cost or None  # a custom provider has no prices: pi says 0
        return t.build()

    def _assistant(self, t: TranscriptBuilder, message: Mapping[str, object]) -> float:
        stop = message.get("stopReason")
        content = message.get("content")
        blocks = [as_dict(b) for b in content] if isinstance(content, list) else []
        if stop == "aborted" and not blocks and t.turns >= t.setup.limits.max_turns:
            n = t.setup.limits.max_turns
            t.fail(LIMIT_ERROR.format(max=n, next=n + 1))
            return 0.0
        t.turns += 1
        t.texts = [str(b.get("text") or "") for b in blocks if b.get("type") == "text"]
        for b in blocks:
            if b.get("type") == "toolCall":
                t.call(str(b.get("id")), str(b.get("name")), as_dict(b.get("arguments")))
        usage = as_dict(message.get("usage"))
        t.add_usage(message_usage(usage))
        if stop in ("error", "aborted"):
            t.fail(f"the model call failed: {message.get('errorMessage') or stop}")
        total = as_dict(usage.get("cost")).get("total")
        return float(total) if isinstance(total, int | float) else 0.0


def create(**options: str) -> PiDriver:
    return PiDriver(**options)
