"""GitHub Copilot CLI (`copilot` 1.0.102) as an agent: `copilot --output-format json` with a model of
the scenario's provider (BYOK, `COPILOT_OFFLINE=true`: no GitHub login, no other request), the tools
asked for (`--available-tools`) allowed without asking (`--allow-all-tools`), the prompt on stdin.

Where skills go: `<home>/.agents/skills/<name>/`, the personal folder Copilot CLI reads (and the one
install path every agent CLI of the Agent Skills format reads), so the workspace stays as the scenario
wrote it. Isolation: a fresh HOME and COPILOT_HOME per run whose settings.json disables the built-in
skills (`customize-cloud-agent`, `github-pr-media`) and ignores the project skill folders
(`.github/skills`, `.agents/skills`, `.claude/skills`) of the workspace and of every folder above it
(Copilot looks up to the git root, or to / outside a repository); `--no-custom-instructions` (no
AGENTS.md and the like), `--disable-builtin-mcps`, `--no-auto-update`, `--no-ask-user`. Copilot keeps
the provider's key out of the shell tool's environment itself.

The cache: Copilot CLI unpacks about 235 MB into `$XDG_CACHE_HOME/copilot/` on its first start. The
runs share one cache: in skill-be's image it is unpacked at build time (read-only,
/opt/agent-clis/copilot-cache); on this machine it is the adapter's (`<skill-be cache>/copilot`).

A load: a `tool.execution_start` event of the `skill` tool with `{"skill": <name>}`, whose
`tool.execution_complete` says `success: true`. Copilot offers its `skill` tool only when at least one
skill is enabled: a baseline without skills has the same tools less that one.

Tokens are only in the `--usage-output-file` file: a small python3 program (USAGE_PRINTER) runs the
CLI and then prints that file as one `skill-be.usage` event on stdout.

Turn limit: Copilot has none in a non-interactive run, and retries a failed model request 5 times
(about 15 s). The limit is skill-be's relay (drivers/limit.py, `turn_limit = "relay"`): call
`maxTurns + 1` never reaches the provider. An `assistant.turn_start` event comes after its request
is sent, so it cannot hold the limit alone; the launch also runs Copilot under turn_limit.py's
wrapper, which ends the run at the first `model.call_failure` event (no 15 s of retries) and, as a
backstop, when turn `maxTurns + 2` starts.

MCP servers: the scenario's servers in a file of Copilot's `mcpServers` form (`type: local`, stdio),
passed with `--additional-mcp-config @<file>` while `--disable-builtin-mcps` keeps GitHub's own off;
each server's name is added to `--available-tools` (the name of a server makes all its tools
available). A call is a `tool.execution_start` whose `toolName` is `<server>-<tool>` (it also names
`mcpServerName` and `mcpToolName`).

Follow-ups: the first run sets the session's id (`--session-id <uuid>`; Copilot keeps the session in
the private COPILOT_HOME) and each follow-up is the same launch with `--resume <uuid>` and its own
prompt file.

Copilot's own command sandbox (bubblewrap) is off, its default: in skill-be's container it could not
start (no user namespaces) and the container is the sandbox.
"""

from __future__ import annotations

import json
import os
import shlex
import uuid
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from skill_be.adapters.copilot_cli import FIXED_ENV, FLAGS, IMAGE_CACHE, cache_dir, provider_env, settings, usage_of
from skill_be.agents.drivers.base import AgentSetup, Launch, Transcript
from skill_be.agents.drivers.events import (
    DEFAULT_PATH,
    TranscriptBuilder,
    as_dict,
    as_int,
    chosen_tools,
    events,
    skill_files,
)
from skill_be.agents.drivers.turn_limit import WRAPPER

DEFAULT_TOOLS = ("view", "create", "edit", "bash")
SKILL_TOOL = "skill"  # always asked for, so a skill can be loaded (Copilot offers it when a skill exists)
TURN_MARKER = '"type":"assistant.turn_start"'
API_ERROR = r'"type":"model\.call_failure".*?"statusCode":(\d+)'
PROJECT_SKILL_DIRS = (".github/skills", ".agents/skills", ".claude/skills")
IMAGE_BIN_DIR = "/opt/agent-clis/bin"  # where skill-be's image keeps the CLIs
USAGE_EVENT = "skill-be.usage"
USAGE_PRINTER = """# skill-be: run Copilot CLI, then print its usage file as one event (see drivers/copilot.py).
import json, subprocess, sys

usage, argv = sys.argv[1], sys.argv[2:]
code = subprocess.call(argv)
try:
    with open(usage, encoding="utf-8") as f:
        report = json.load(f)
except (OSError, ValueError):
    report = None
if isinstance(report, dict):
    sys.stdout.write(json.dumps({"type": "skill-be.usage", "usage": report}) + "\\n")
    sys.stdout.flush()
sys.exit(code)
"""


def mcp_servers(setup: AgentSetup) -> dict[str, object]:
    """The scenario's MCP servers in Copilot CLI's `mcpServers` form (local: stdio), every tool on."""
    return {m.name: {"type": "local", "command": m.command, "args": list(m.args), "env": dict(m.env), "tools": ["*"]}
            for m in setup.mcp}  # fmt: skip


def ignored_skill_dirs(workspace: PurePosixPath) -> list[str]:
    """The project skill folders of the workspace and of every folder above it."""
    return [str(d / sub) for d in (workspace, *workspace.parents) for sub in PROJECT_SKILL_DIRS]


class CopilotDriver:
    name = "copilot"
    providers: tuple[str, ...] = ("openai", "anthropic")
    # A trigger call needs no write, edit or shell: the agent may look around and load a skill.
    trigger_tools: tuple[str, ...] = ("view",)
    turn_limit = "relay"  # skill-be's own (drivers/limit.py): Copilot has none
    # expect.tools' shared names for Copilot's own (`view`, `create`, `str_replace`/`edit`, `bash`, `skill`).
    tool_names: Mapping[str, str] = {"bash": "shell", "view": "read", "create": "write", "edit": "edit",
                                     "str_replace": "edit", "skill": "skill"}  # fmt: skip
    takes_mcp = True  # --additional-mcp-config @file with --disable-builtin-mcps; MCP tools: <server>-<tool>
    resumes = True  # followUps: --session-id <uuid> on the first run, --resume <it> on each follow-up

    def __init__(
        self, bin: str = "copilot", path: str = DEFAULT_PATH, python: str = "python3", cache: str = ""
    ) -> None:
        self.bin = bin
        self.path = path
        self.python = python
        # The image's pre-warmed cache where the launch runs the image's CLI; else this machine's.
        in_image = bin == "copilot" and path.split(":")[0] == IMAGE_BIN_DIR
        self.cache = cache or (IMAGE_CACHE if in_image else str(cache_dir(os.environ)))

    @property
    def version_command(self) -> str:
        """`copilot --version` with the unpacked cache (else its first start unpacks 235 MB), offline."""
        return f"COPILOT_OFFLINE=true XDG_CACHE_HOME={shlex.quote(self.cache)} {shlex.quote(self.bin)} --version"

    def tools(self, setup: AgentSetup) -> list[str]:
        return [*chosen_tools(setup, DEFAULT_TOOLS, SKILL_TOOL), SKILL_TOOL, *(m.name for m in setup.mcp)]

    @staticmethod
    def mcp_tool(name: str, servers: Sequence[str]) -> tuple[str, str] | None:
        """(server, tool) of an MCP call, which Copilot names `<server>-<tool>`, for a declared server."""
        for server in sorted(servers, key=len, reverse=True):
            if name.startswith(server + "-") and len(name) > len(server) + 1:
                return server, name[len(server) + 1 :]
        return None

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        ep = setup.endpoint
        if ep.provider not in self.providers:
            raise ValueError(f'Copilot CLI speaks the openai or anthropic API here, not "{ep.provider}"')
        ours = home / ".skill-be"
        files = skill_files(home / ".agents" / "skills", setup.skills)
        files[home / ".copilot" / "settings.json"] = json.dumps(settings(ignored_skill_dirs(workspace))).encode()
        files[ours / "turn_limit.py"] = WRAPPER.encode()
        files[ours / "usage.py"] = USAGE_PRINTER.encode()
        env = {**FIXED_ENV, **provider_env(ep.provider, ep.base_url, ep.model, ep.api_key),
               "HOME": str(home), "COPILOT_HOME": str(home / ".copilot"), "XDG_CACHE_HOME": self.cache,
               "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
               "PATH": self.path, "LANG": "C.UTF-8"}  # fmt: skip
        if setup.limits.max_tokens is not None:
            env["COPILOT_PROVIDER_MAX_OUTPUT_TOKENS"] = str(setup.limits.max_tokens)
        flags = [*FLAGS, "--available-tools=" + ",".join(self.tools(setup))]
        if setup.mcp:
            files[ours / "mcp.json"] = json.dumps({"mcpServers": mcp_servers(setup)}, indent=2).encode() + b"\n"
            flags += ["--additional-mcp-config", "@" + str(ours / "mcp.json")]
        # Follow-ups resume the session, kept in the private COPILOT_HOME.
        session = str(uuid.uuid4())
        turns = []
        for i, text in enumerate([setup.prompt, *setup.follow_ups]):
            name = "prompt.txt" if i == 0 else f"prompt-{i}.txt"
            files[ours / name] = text.encode()
            usage = str(ours / ("usage.json" if i == 0 else f"usage-{i}.json"))
            session_flag = ["--session-id", session] if i == 0 else ["--resume", session]
            turns.append([self.python, str(ours / "usage.py"), usage,
                          self.python, str(ours / "turn_limit.py"), str(setup.limits.max_turns + 1), TURN_MARKER,
                          str(ours / name), API_ERROR, self.bin, *flags, "--usage-output-file", usage,
                          *(session_flag if setup.follow_ups else [])])  # fmt: skip
        return Launch(argv=turns[0], env=env, files=files, cwd=workspace, then=turns[1:])

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = TranscriptBuilder(setup)  # offered stays None when no session.skills_loaded came
        exit_code = 0
        for event in events(stdout):
            kind = event.get("type")
            data = as_dict(event.get("data"))
            if kind == "session.skills_loaded":
                listed = data.get("skills")
                skills = [as_dict(s) for s in listed] if isinstance(listed, list) else []
                t.offered = [str(s.get("name")) for s in skills if s.get("enabled") is True]
            elif kind == "assistant.turn_start":
                t.turns += 1
            elif kind == "assistant.message" and str(data.get("content") or "").strip():
                t.texts = [str(data["content"])]
            elif kind == "tool.execution_start":
                t.call(str(data.get("toolCallId")), str(data.get("toolName")), as_dict(data.get("arguments")))
            elif kind == "tool.execution_complete":
                self._done(t, data)
            elif kind == "session.error":
                t.fail(str(data.get("message") or json.dumps(data)))
            elif kind == "error":  # the wrapper's: the turn limit, or a failed model request
                t.fail(self._wrapper_error(as_dict(event.get("error"))))
            elif kind == "result":
                exit_code = as_int(event.get("exitCode"))
            elif kind == USAGE_EVENT:
                self._usage(t, as_dict(event.get("usage")))
        if exit_code:
            t.fail(f"Copilot CLI exited with code {exit_code}")
        return t.build()

    @staticmethod
    def _done(t: TranscriptBuilder, data: Mapping[str, object]) -> None:
        call_id = str(data.get("toolCallId"))
        ok = data.get("success") is True
        result = as_dict(data.get("result"))
        error = as_dict(data.get("error"))
        t.result(call_id, str(result.get("content") or error.get("message") or ""), not ok)
        i = t.by_id.get(call_id)
        if i is None or not ok or t.calls[i].name != SKILL_TOOL:
            return
        name = t.calls[i].arguments.get("skill")
        if isinstance(name, str) and name:
            t.mark_loaded(name, t.calls[i].turn)

    @staticmethod
    def _usage(t: TranscriptBuilder, report: Mapping[str, object]) -> None:
        usage = usage_of(report)
        if usage is not None:
            t.add_usage(usage)

    @staticmethod
    def _wrapper_error(error: Mapping[str, object]) -> str:
        message = str(as_dict(error.get("data")).get("message") or error.get("name") or "")
        if error.get("name") == "SkillBeApiError":
            return f"the model call failed: HTTP {message} (Copilot CLI would have retried it)"
        return message


def create(**options: str) -> CopilotDriver:
    return CopilotDriver(**options)
