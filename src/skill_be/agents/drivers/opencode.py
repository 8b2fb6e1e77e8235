"""opencode (`opencode` 1.18.33) as an agent: `opencode run --format json`, isolated through its
environment and a config passed in OPENCODE_CONFIG_CONTENT.

Where skills go: `<home>/skills/<name>/`, named in the config's `skills.paths`; the workspace is left
as the scenario wrote it. Isolation: the one-shot adapter's environment (no project config, no
`.opencode/`, `.claude/` or `.agents/` skills from the workspace or its parents, no plugins, no
models fetch, the npm registry pointed at loopback, an in-memory database), private XDG dirs under
<home>, no snapshots (opencode's undo history, a git repository of the workspace), an agent of
skill-be's own with only the tools asked for, and the built-in skill `customize-opencode` denied (it
is offered in every run otherwise). The skill tool needs ripgrep (`rg`) on PATH; without it opencode
tries to download it and, offline, a load fails.

A load: a `tool_use` event for the `skill` tool, status `completed`, input `{"name": <name>}`.

Turn limit: the agent's `steps` only asks the model to stop (and keeps running its tools when it
does not), and opencode sends model call `maxTurns + 1` before it says a step started, so the limit
is skill-be's relay (drivers/limit.py, `turn_limit = "relay"`): call `maxTurns + 1` never reaches
the provider. The launch also runs opencode under a small python3 wrapper (turn_limit.py) that ends
the run at opencode's first "stream error" log line (a failed model request, which opencode would
retry for about a minute; the relay's refusal is one), gives opencode the prompt on stdin (as an
argument, opencode would wrap a prompt with spaces in quotes), and ends the run when step
`maxTurns + 2` starts, a second lock.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePosixPath

from skill_be.adapters.opencode_cli import FIXED_ENV, step_usage
from skill_be.agents.drivers.base import AgentSetup, Launch, Transcript
from skill_be.agents.drivers.events import (
    DEFAULT_PATH,
    TranscriptBuilder,
    as_dict,
    chosen_tools,
    events,
    skill_file_read,
    skill_files,
)
from skill_be.agents.drivers.turn_limit import WRAPPER

DEFAULT_TOOLS = ("read", "write", "edit", "bash")
SKILL_TOOL = "skill"  # always on, so both arms have the same tools and a skill can be loaded
AGENT = "skill-be"
PROVIDER = "skill-be"
TURN_MARKER = '"type":"step_start"'
# opencode's log line for a failed request of the agent's own model (small=true is the title call,
# whose failure opencode shrugs off); group 1 is the provider's message.
API_ERROR = r'level=ERROR .*message="stream error".* small=false .*?error\.error="((?:[^"\\]|\\.)*)"'
SDKS = {"openai": "@ai-sdk/openai-compatible", "anthropic": "@ai-sdk/anthropic"}
# opencode's permission names: write and patch come under edit.
PERMISSION_OF = {"write": "edit", "patch": "edit", "multiedit": "edit"}


class OpencodeDriver:
    name = "opencode"
    providers: tuple[str, ...] = ("openai", "anthropic")
    # A trigger call needs no write, edit or shell: the agent may look around and load a skill.
    trigger_tools: tuple[str, ...] = ("read",)
    turn_limit = "relay"  # skill-be's own (drivers/limit.py): opencode's steps do not hold
    # expect.tools' shared names (glob, grep, list, webfetch, todowrite keep their own); MCP tools:
    # <server>_<tool>.
    resumes = True  # followUps: a database in the private home (not in memory), --continue on each
    takes_mcp = True  # the config's `mcp`: local servers, their tools allowed as <server>_*
    tool_names: Mapping[str, str] = {"bash": "shell", "read": "read", "write": "write", "edit": "edit",
                                     "patch": "edit", "multiedit": "edit", "skill": "skill"}  # fmt: skip

    def __init__(self, bin: str = "opencode", path: str = DEFAULT_PATH, python: str = "python3") -> None:
        self.bin = bin
        self.path = path
        self.python = python

    def tools(self, setup: AgentSetup) -> list[str]:
        return [*chosen_tools(setup, DEFAULT_TOOLS, SKILL_TOOL), SKILL_TOOL]

    def model(self, setup: AgentSetup) -> str:
        ep = setup.endpoint
        return f"{PROVIDER if ep.base_url else ep.provider}/{ep.model}"

    def config(self, setup: AgentSetup, skills_dir: PurePosixPath) -> dict[str, object]:
        tools = self.tools(setup)
        permission: dict[str, object] = {"*": "deny", "external_directory": "allow"}
        for t in tools:
            permission[PERMISSION_OF.get(t, t)] = "allow"
        permission[SKILL_TOOL] = {"*": "allow", "customize-opencode": "deny"}
        servers = {f"{m.name}_*": True for m in setup.mcp}
        permission.update(dict.fromkeys(servers, "allow"))
        agent = {"mode": "primary", "steps": setup.limits.max_turns,
                 "tools": {"*": False, **dict.fromkeys(tools, True), **servers}, "permission": permission}  # fmt: skip
        mcp = {m.name: {"type": "local", "command": [m.command, *m.args], "environment": dict(m.env), "enabled": True}
               for m in setup.mcp}  # fmt: skip
        config: dict[str, object] = {
            "$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
            "mcp": mcp, "plugin": [], "instructions": [], "skills": {"paths": [str(skills_dir)]},
            "agent": {AGENT: agent}, "small_model": self.model(setup),
            # No snapshots: opencode keeps a private git repository of the workspace for its undo and
            # revert, indexed at the start and after every step (about 1 of the 7 CPU-seconds of a
            # five-step run); skill-be takes the run's diff from the workspace it copies out.
            "snapshot": False,
        }  # fmt: skip
        ep = setup.endpoint
        if ep.base_url:
            url = ep.base_url + "/v1" if ep.provider == "anthropic" else ep.base_url  # that SDK wants /v1
            model: dict[str, object] = {}
            if setup.limits.max_tokens is not None:
                model["limit"] = {"context": 200_000, "output": setup.limits.max_tokens}
            config["provider"] = {PROVIDER: {"npm": SDKS[ep.provider], "name": PROVIDER, "options": {"baseURL": url},
                                             "models": {ep.model: model}}}  # fmt: skip
        return config

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        ep = setup.endpoint
        if ep.provider not in SDKS:
            raise ValueError(f'opencode speaks the openai or anthropic API here, not "{ep.provider}"')
        skills_dir = home / "skills"
        wrapper = home / ".skill-be" / "turn_limit.py"
        prompt = home / ".skill-be" / "prompt.txt"
        files = skill_files(skills_dir, setup.skills)
        files[wrapper] = WRAPPER.encode()
        # On stdin, not as an argument: opencode wraps an argument with spaces in quotes.
        files[prompt] = setup.prompt.encode()
        prompts = [home / ".skill-be" / f"prompt-{i}.txt" for i in range(2, len(setup.follow_ups) + 2)]
        files.update({p: text.encode() for p, text in zip(prompts, setup.follow_ups, strict=True)})
        for d in ("config", "state", "cache", "data"):
            files[home / d / ".keep"] = b""  # opencode crashes when these cannot be made
        env = {**FIXED_ENV, "HOME": str(home), "OPENCODE_TEST_HOME": str(home), "PATH": self.path,
               "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
               "XDG_CACHE_HOME": str(home / "cache"), "XDG_DATA_HOME": str(home / "data"),
               "OPENCODE_CONFIG_CONTENT": json.dumps(self.config(setup, skills_dir)), "LANG": "C.UTF-8"}  # fmt: skip
        if ep.api_key:
            env["OPENCODE_AUTH_CONTENT"] = json.dumps(
                {PROVIDER if ep.base_url else ep.provider: {"type": "api", "key": ep.api_key}}
            )
        if setup.follow_ups:  # the session must outlive the first run: a database in the private home
            env["OPENCODE_DB"] = str(home / "data" / "opencode.db")

        def run(text_file: PurePosixPath, more: tuple[str, ...] = ()) -> list[str]:
            return [self.python, str(wrapper), str(setup.limits.max_turns + 1), TURN_MARKER, str(text_file), API_ERROR,
                    self.bin, "run", "-m", self.model(setup), "--agent", AGENT, "--title", "skill-be", "--pure",
                    "--format", "json", "--dir", str(workspace), "--print-logs", "--log-level", "ERROR", *more]  # fmt: skip

        then = [run(p, ("--continue",)) for p in prompts]
        return Launch(argv=run(prompt), env=env, files=files, cwd=workspace, then=then)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = TranscriptBuilder(setup)
        # skills.paths is the only place skills come from and customize-opencode is denied.
        t.offered = [s.name for s in setup.skills]
        cost = 0.0
        for event in events(stdout):
            kind = event.get("type")
            part = as_dict(event.get("part"))
            if kind == "step_start":
                t.turns += 1
                t.texts = []
            elif kind == "text":
                t.texts.append(str(part.get("text") or ""))
            elif kind == "tool_use":
                self._tool(t, part)
            elif kind == "step_finish":
                t.add_usage(step_usage(as_dict(part.get("tokens"))))
                c = part.get("cost")
                cost += float(c) if isinstance(c, int | float) else 0.0
            elif kind == "error":
                t.fail(self._error(as_dict(event.get("error"))))
        t.cost_usd = cost or None  # a custom provider has no prices: opencode says 0
        return t.build()

    def _tool(self, t: TranscriptBuilder, part: Mapping[str, object]) -> None:
        state = as_dict(part.get("state"))
        args = as_dict(state.get("input"))
        name = str(part.get("tool"))
        call_id = str(part.get("callID"))
        t.call(call_id, name, args)
        status = state.get("status")
        failed = status == "error"
        t.result(call_id, str(state.get("output") or state.get("error") or ""), failed)
        if status != "completed":
            return
        if name == SKILL_TOOL and isinstance(args.get("name"), str):
            t.mark_loaded(str(args["name"]), t.turns)
        elif name == "read" and (skill := skill_file_read(args.get("filePath"), t.setup.skills)):
            t.mark_loaded(skill, t.turns)

    @staticmethod
    def _error(error: Mapping[str, object]) -> str:
        data = as_dict(error.get("data"))
        message = data.get("message") or error.get("name") or json.dumps(error)
        return str(message)


def create(**options: str) -> OpencodeDriver:
    return OpencodeDriver(**options)
