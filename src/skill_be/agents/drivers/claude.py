"""Claude Code (`claude` 2.1.197) as an agent: `claude -p --output-format stream-json --verbose`.

Where skills go: the user-level skill folder of a private config dir, `<home>/.claude/skills/<name>/`
(CLAUDE_CONFIG_DIR=<home>/.claude), found through `--setting-sources user` (that private folder and
nothing else: no project settings, skills or CLAUDE.md of the workspace or its parents, git or not);
the workspace itself is left as the scenario wrote it. Isolation: the one-shot adapter's environment
(auto memory off, no non-essential traffic, no retries), no MCP servers but the scenario's
(`--strict-mcp-config`, and `--mcp-config <home>/.claude/skill-be-mcp.json` when it has `mcp`; each
server's tools allowed as `mcp__<server>`), no
bundled skills (CLAUDE_CODE_DISABLE_BUNDLED_SKILLS), no CLAUDE.md anywhere (CLAUDE_CODE_DISABLE_CLAUDE_MDS,
a second lock: with the `project` source a parent folder's CLAUDE.md is read even in a git workspace),
only the tools asked for (`--tools`), each allowed without a prompt (`--allowedTools`).

A load: the `Skill {"skill": name}` tool call, answered by a user event with
`tool_use_result: {"success": true, "commandName": name}`; a `Read` of an installed SKILL.md counts too.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import PurePosixPath

from skill_be.adapters.claude_cli import ISOLATION_ENV, usage_of
from skill_be.agents.drivers.base import AgentSetup, Launch, Transcript
from skill_be.agents.drivers.events import (
    DEFAULT_PATH,
    TranscriptBuilder,
    as_dict,
    chosen_tools,
    events,
    skill_file_read,
    skill_files,
    text_of,
)
from skill_be.agents.drivers.limit import LIMIT_ERROR

DEFAULT_TOOLS = ("Read", "Write", "Edit", "Bash")
SKILL_TOOL = "Skill"  # always offered, so both arms have the same tools and a skill can be loaded
AGENT_ENV = {
    **ISOLATION_ENV,
    "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS": "1",  # deep-research, verify, ... would be offered in both arms
    "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",  # no CLAUDE.md from the workspace's parents (or anywhere)
    "DISABLE_AUTOUPDATER": "1",
    "LANG": "C.UTF-8",
}
MCP_FILE = "skill-be-mcp.json"
ERRORS = {
    "error_max_turns": LIMIT_ERROR,  # claude stops before model call maxTurns + 1 is sent
    "error_during_execution": "the run failed during execution",
}


def mcp_servers(setup: AgentSetup) -> dict[str, object]:
    """The scenario's MCP servers in Claude Code's `mcpServers` form (stdio)."""
    return {
        m.name: {"type": "stdio", "command": m.command, "args": list(m.args), "env": dict(m.env)} for m in setup.mcp
    }


class ClaudeDriver:
    name = "claude"
    providers: tuple[str, ...] = ("anthropic",)
    # A trigger call needs no write, edit or shell: the agent may look around and load a skill.
    trigger_tools: tuple[str, ...] = ("Read",)
    # expect.tools' shared names (Glob, Grep, WebFetch, ... keep their own); MCP tools: mcp__<server>__<tool>.
    resumes = True  # followUps: --session-id on the first run, --resume <it> on each follow-up
    takes_mcp = True  # --mcp-config with --strict-mcp-config: the scenario's servers and no other
    tool_names: Mapping[str, str] = {"Bash": "shell", "Read": "read", "Write": "write", "Edit": "edit",
                                     "MultiEdit": "edit", "NotebookEdit": "edit", "Skill": "skill"}  # fmt: skip

    def __init__(self, bin: str = "claude", path: str = DEFAULT_PATH) -> None:
        self.bin = bin
        self.path = path

    def tools(self, setup: AgentSetup) -> list[str]:
        return [SKILL_TOOL, *chosen_tools(setup, DEFAULT_TOOLS, SKILL_TOOL)]

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        if setup.endpoint.provider != "anthropic":
            raise ValueError(f'claude speaks only the anthropic API, not "{setup.endpoint.provider}"')
        config = home / ".claude"
        tools = ",".join(self.tools(setup))
        allowed = ",".join([*self.tools(setup), *(f"mcp__{m.name}" for m in setup.mcp)])  # a server: all its tools
        mcp = ["--mcp-config", str(config / MCP_FILE)] if setup.mcp else []
        base = [
            self.bin, "-p", "--output-format", "stream-json", "--verbose",
            "--model", setup.endpoint.model,
            # Only the private config dir: no project settings, skills or CLAUDE.md from the workspace or
            # its parents (with `project`, a non-git workspace gets its parents' .claude/skills).
            "--setting-sources", "user",
            "--strict-mcp-config", *mcp,
            "--tools", tools, "--allowedTools", allowed,
            "--max-turns", str(setup.limits.max_turns),
        ]  # fmt: skip
        # Follow-ups resume the session, kept in the private config dir; without them nothing is kept.
        session = str(uuid.uuid4())
        first = ["--session-id", session] if setup.follow_ups else ["--no-session-persistence"]
        argv = [*base, *first, "--", setup.prompt]
        then = [[*base, "--resume", session, "--", text] for text in setup.follow_ups]
        env = {**AGENT_ENV, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config), "PATH": self.path}
        if setup.endpoint.base_url:
            env["ANTHROPIC_BASE_URL"] = setup.endpoint.base_url
        if setup.endpoint.api_key:
            env["ANTHROPIC_API_KEY"] = setup.endpoint.api_key
        if setup.limits.max_tokens is not None:
            env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(setup.limits.max_tokens)  # per model response
        files = skill_files(config / "skills", setup.skills)
        files[config / "settings.json"] = b"{}\n"  # the user settings are ours: empty
        if setup.mcp:
            files[config / MCP_FILE] = json.dumps({"mcpServers": mcp_servers(setup)}, indent=2).encode() + b"\n"
        return Launch(argv=argv, env=env, files=files, cwd=workspace, then=then)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = TranscriptBuilder(setup)
        message_ids: set[str] = set()
        for event in events(stdout):
            kind = event.get("type")
            if kind == "system" and event.get("subtype") == "init":
                skills = event.get("skills")
                t.offered = [str(s) for s in skills] if isinstance(skills, list) else None
            elif kind == "assistant":
                self._assistant(t, as_dict(event.get("message")), message_ids)
            elif kind == "user":
                self._user(t, event)
            elif kind == "result":
                self._result(t, event)
        return t.build()

    def _assistant(self, t: TranscriptBuilder, message: Mapping[str, object], ids: set[str]) -> None:
        # One model response may come as several events (a text block, then a tool_use), one id.
        mid = str(message.get("id") or len(ids))
        if mid not in ids:
            ids.add(mid)
            t.turns += 1
            t.texts = []
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            b = as_dict(block)
            if b.get("type") == "text":
                t.texts.append(str(b.get("text") or ""))
            elif b.get("type") == "tool_use":
                args = as_dict(b.get("input"))
                t.call(str(b.get("id")), str(b.get("name")), args)
                if b.get("name") == "Read" and (name := skill_file_read(args.get("file_path"), t.setup.skills)):
                    t.mark_loaded(name, t.turns)

    def _user(self, t: TranscriptBuilder, event: Mapping[str, object]) -> None:
        content = as_dict(event.get("message")).get("content")
        outcome = as_dict(event.get("tool_use_result"))
        for block in content if isinstance(content, list) else []:
            b = as_dict(block)
            if b.get("type") != "tool_result":
                continue
            call_id = str(b.get("tool_use_id"))
            t.result(call_id, text_of(b.get("content")), bool(b.get("is_error")))
            name = outcome.get("commandName")
            if outcome.get("success") is True and isinstance(name, str) and call_id in t.by_id:
                call = t.calls[t.by_id[call_id]]
                if call.name == SKILL_TOOL:
                    t.mark_loaded(name, call.turn)

    def _result(self, t: TranscriptBuilder, event: Mapping[str, object]) -> None:
        usage = usage_of(event)  # one result per run: a conversation with follow-ups adds them up
        if usage is not None:
            t.add_usage(usage)
        cost = event.get("total_cost_usd")
        if isinstance(cost, int | float):
            t.cost_usd = (t.cost_usd or 0.0) + float(cost)
        subtype = str(event.get("subtype") or "")
        result = event.get("result")
        if subtype == "success" and not event.get("is_error"):
            t.final = str(result or "")
            return
        if subtype in ERRORS:
            n = t.setup.limits.max_turns
            t.fail(ERRORS[subtype].format(max=n, next=n + 1))
        else:
            status = event.get("api_error_status")
            detail = str(result or subtype or "error")
            t.fail(f"API error {status}: {detail}" if status else detail)
        if isinstance(result, str):
            t.final = result


def create(**options: str) -> ClaudeDriver:
    return ClaudeDriver(**options)
