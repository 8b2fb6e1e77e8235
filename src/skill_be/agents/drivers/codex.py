"""Codex CLI (`codex` 0.169.0) as an agent: `codex exec --json --ephemeral --skip-git-repo-check`
(`--ephemeral` only for a run without follow-ups).

The endpoint: Codex reaches a model only through a provider of its config, and only over the
Responses API (`wire_api="responses"`: `POST {base_url}/responses`, streamed). The launch names a
provider of skill-be's own with `-c` (base URL, the key's variable, retries off); without a
`baseUrl` it is OpenAI's own host. `OPENAI_BASE_URL` is ignored by this version.

Where skills go: `<home>/.agents/skills/<name>/`, the user-level folder Codex discovers (HOME is the
run's private home), so the workspace stays as the scenario wrote it. A workspace's own
`.agents/skills` would be offered in both arms, as Codex offers it to its users. Isolation: a fresh
CODEX_HOME per run (no config, no `AGENTS.md`, no login of the user's: `$CODEX_HOME/AGENTS.md` is
injected whatever the settings say), TMPDIR outside it (Codex refuses to make its helper binaries
under the temp dir), the bundled skills off (`skills.bundled.enabled=false`), no project AGENTS.md
(`project_doc_max_bytes=0`), plugins off, analytics and the update check off (with these, no request
leaves but the endpoint's), web search off, the shell not a login shell (the launch's PATH holds),
stdin closed (it waits on it otherwise).

Its own sandbox is off (`-s danger-full-access`): it needs user namespaces, which Docker's default
profile denies, and there every command fails while the run still exits 0. skill-be's agent box is
the sandbox (a container with no network but the provider's; or `sandbox: process`, the user's
choice). In `exec` its approval policy is already `never`.

A load: Codex has no skill tool. It offers the skills in a developer message (name, description,
`file:` path) and the model reads a SKILL.md with its shell; a load is a `command_execution` that
names `.agents/skills/<name>/SKILL.md`, ended with exit code 0, whose output holds a line of that
file. A `cat` of another file is not a load.

MCP servers: each of the scenario's servers as `-c mcp_servers.<name>={command, args, env}` (stdio;
Codex starts it and offers its tools to the model as a namespace `mcp__<name>`); a call is an
`mcp_tool_call` item with its `server` and `tool`, recorded as `mcp__<server>__<tool>`.

Follow-ups: the first run is kept (no `--ephemeral`: the session lives in the private CODEX_HOME) and
each follow-up is `codex exec ... resume --last -- <text>`, the newest session of that home (there is
only the one), with the same options; each run prints its own `turn.started` ... `turn.completed`.

Turns: the event stream has no event per model call; a tool item's turn is one more than the tool
items finished before it started in the same run, after the turns of the runs before it (exact for one
call per model response). The turn limit is skill-be's own (drivers/limit.py: Codex has none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from skill_be.adapters.codex_cli import (
    CONFIG,
    DEFAULT_BASE_URL,
    KEY_VAR,
    PROVIDER,
    provider_config,
    toml_string,
    usage_of,
)
from skill_be.agents.drivers.base import AgentSetup, Launch, McpServerSpec, SkillToInstall, Transcript
from skill_be.agents.drivers.events import (
    DEFAULT_PATH,
    TranscriptBuilder,
    as_dict,
    events,
    skill_files,
    text_of,
)

SHELL_TOOL = "exec_command"  # Codex's own name for its shell; every read, write and command goes through it
SKILLS_DIR = ".agents/skills"
TOOL_ITEMS = ("command_execution", "mcp_tool_call")


def mcp_config(server: McpServerSpec) -> str:
    """The `-c` value of one stdio MCP server (names are letters, digits, - and _: bare TOML keys)."""
    args = "[" + ",".join(toml_string(a) for a in server.args) + "]"
    env = "{" + ",".join(f"{toml_string(k)}={toml_string(v)}" for k, v in server.env.items()) + "}"
    return f"mcp_servers.{server.name}={{command={toml_string(server.command)},args={args},env={env}}}"


def skill_read(command: object, output: object, skills: Sequence[SkillToInstall]) -> str | None:
    """The skill whose SKILL.md a shell command read: the command names `.agents/skills/<name>/SKILL.md`
    and its output holds a line of that file (so `ls` or `test -f` of the path is not a read)."""
    if not isinstance(command, str) or not isinstance(output, str):
        return None
    seen = set(output.splitlines())
    for s in skills:
        if f"{SKILLS_DIR}/{s.name}/SKILL.md" not in command:
            continue
        lines = s.files.get("SKILL.md", b"").decode("utf-8", "replace").splitlines()
        if any(line.strip() not in ("", "---") and line in seen for line in lines):
            return s.name
    return None


class CodexDriver:
    name = "codex"
    providers: tuple[str, ...] = ("openai",)  # the Responses API
    # Codex's tools cannot be chosen: its shell is how it looks around and how it loads a skill.
    trigger_tools: tuple[str, ...] = (SHELL_TOOL,)
    tool_names: Mapping[str, str] = {SHELL_TOOL: "shell"}  # expect.tools: every call is its shell
    # skill-be's turn limit (drivers/limit.py): Codex has none of its own.
    turn_limit = "relay"
    takes_mcp = True  # -c mcp_servers.<name>=...: the scenario's servers (the private CODEX_HOME has no other)
    resumes = True  # followUps: the session kept in the private CODEX_HOME, `exec resume --last` on each

    def __init__(self, bin: str = "codex", path: str = DEFAULT_PATH) -> None:
        self.bin = bin
        self.path = path

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        ep = setup.endpoint
        if ep.provider != "openai":
            raise ValueError(f'codex speaks only the OpenAI Responses API, not "{ep.provider}"')
        if setup.tools is not None and set(setup.tools) - {SHELL_TOOL}:
            raise ValueError(
                f"codex cannot choose its tools (its shell, {SHELL_TOOL}, is all it has); remove agent.tools"
            )
        codex_home = home / ".codex"
        files = skill_files(home / SKILLS_DIR, setup.skills)
        files[codex_home / "config.toml"] = b"# skill-be: every setting is on the command line\n"
        files[home / "tmp" / ".keep"] = b""
        env = {"HOME": str(home), "CODEX_HOME": str(codex_home), "TMPDIR": str(home / "tmp"), "PATH": self.path,
               "LANG": "C.UTF-8"}  # fmt: skip
        if ep.api_key:
            env[KEY_VAR] = ep.api_key
        config = [f"model={toml_string(ep.model)}", f"model_provider={PROVIDER}",
                  provider_config(ep.base_url or DEFAULT_BASE_URL, bool(ep.api_key)), *CONFIG, *map(mcp_config, setup.mcp)]  # fmt: skip
        # Follow-ups resume the session, kept in the private CODEX_HOME; without them nothing is kept.
        kept = [] if setup.follow_ups else ["--ephemeral"]
        base = [self.bin, "exec", "--json", *kept, "--skip-git-repo-check", "-s", "danger-full-access",
                "-C", str(workspace), "--disable", "plugins", *[a for c in config for a in ("-c", c)]]  # fmt: skip
        then = [[*base, "resume", "--last", "--", text] for text in setup.follow_ups]
        return Launch(argv=[*base, "--", setup.prompt], env=env, files=files, cwd=workspace, then=then)

    @staticmethod
    def mcp_tool(name: str, servers: Sequence[str]) -> tuple[str, str] | None:
        """(server, tool) of a call recorded as `mcp__<server>__<tool>`, for a declared server."""
        for server in sorted(servers, key=len, reverse=True):
            prefix = f"mcp__{server}__"
            if name.startswith(prefix) and len(name) > len(prefix):
                return server, name[len(prefix) :]
        return None

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = TranscriptBuilder(setup)
        t.offered = [s.name for s in setup.skills]  # a fresh CODEX_HOME and the bundled skills off
        before, done_tools = 0, 0  # the turns of the runs before this one; tool items done in this one
        for event in events(stdout):
            kind = event.get("type")
            item = as_dict(event.get("item"))
            tool = item.get("type") in TOOL_ITEMS
            if kind == "turn.started":  # one per run: the prompt's, then each follow-up's
                before, done_tools = t.turns, 0
            elif kind == "item.started" and tool:
                t.turns = before + done_tools + 1
                t.call(str(item.get("id")), *self._named(item))
            elif kind == "item.completed" and tool:
                done_tools += 1
                self._tool_done(t, item, before)
            elif kind == "item.completed" and item.get("type") == "agent_message":
                t.turns = before + done_tools + 1
                t.texts = [str(item.get("text") or "")]
            elif kind == "turn.completed":
                t.add_usage(usage_of(as_dict(event.get("usage"))))
            elif kind == "turn.failed":
                t.fail(f"the model call failed: {as_dict(event.get('error')).get('message') or 'turn failed'}")
            elif kind == "error":
                t.fail(str(event.get("message") or "error"))
        return t.build()

    @staticmethod
    def _named(item: Mapping[str, object]) -> tuple[str, Mapping[str, object]]:
        """A tool item's name and arguments: the shell's command, or an MCP server's tool and its input."""
        if item.get("type") == "mcp_tool_call":
            return f"mcp__{item.get('server')}__{item.get('tool')}", as_dict(item.get("arguments"))
        return SHELL_TOOL, {"command": item.get("command")}

    def _tool_done(self, t: TranscriptBuilder, item: Mapping[str, object], before: int) -> None:
        call_id = str(item.get("id"))
        if call_id not in t.by_id:  # a completed item without its start: record it now
            t.turns = max(t.turns, before + 1)
            t.call(call_id, *self._named(item))
        if item.get("type") == "mcp_tool_call":
            error = item.get("error")
            failed = error is not None or item.get("status") != "completed"
            text = str(as_dict(error).get("message") or error) if error is not None else ""
            t.result(call_id, text or text_of(as_dict(item.get("result")).get("content")), failed)
            return
        exit_code = item.get("exit_code")
        output = item.get("aggregated_output")
        t.result(call_id, str(output or ""), exit_code != 0)
        if exit_code == 0 and (name := skill_read(item.get("command"), output, t.setup.skills)):
            t.mark_loaded(name, t.calls[t.by_id[call_id]].turn)


def create(**options: str) -> CodexDriver:
    return CodexDriver(**options)
