"""Gemini CLI (`gemini` 0.61.0) as an agent: `gemini -m M --prompt=... -o stream-json --skip-trust
--approval-mode yolo`, pointed at the scenario's endpoint with `GOOGLE_GEMINI_BASE_URL` and
`GEMINI_API_KEY` (the Gemini API: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`).

The model is always named (`-m`): Gemini's default, `auto`, first asks a classifier model which one to
use (one more call, to a model the scenario did not name). The approval mode is yolo: without it the
tools `tools.core` names are still declared, but the shell and the writes fail at run time (they ask
for a confirmation a non-interactive run cannot give). The tools the scenario allows are chosen with
`tools.core` (an allowlist; `activate_skill` is always on it, so a skill can be loaded).

Where skills go: `<home>/.agents/skills/<name>/`, the user-level folder Gemini discovers (HOME is the
run's private home), so the workspace stays as the scenario wrote it. A workspace's own `.agents/skills`
or `.gemini/skills` would be offered in both arms, as Gemini offers it to its users. Isolation: a fresh
HOME (and a system settings file of its own, so nothing of /etc/gemini-cli applies) whose
`.gemini/settings.json` selects API-key auth (without it the run exits 41), disables the
built-in skills (`skill-creator`, `antigravity-support`), turns usage statistics off (its one request
to another host), makes one attempt per model request (`general.maxAttempts`: its default, 10 with
backoff, turns a failing endpoint into minutes) and stops the GEMINI.md search at the workspace
(`context.memoryBoundaryMarkers: []`). No setting hides a GEMINI.md: the fresh HOME hides the user's,
and a workspace's own GEMINI.md is read in both arms. TMPDIR is in the private home (Gemini writes an
error report there on a failed request). Extensions are off (`-e none`).

A load: a `tool_use` event of `activate_skill` with the skill's name, or of `read_file` of an
installed SKILL.md, whose `tool_result` says `success`. The `tool_result` output is Gemini's display text, not what the model saw (a file read
shows as an empty string).

Turns: Gemini counts model calls itself: `model.maxSessionTurns` N lets exactly N model calls through
and ends the run with exit 53 and a `FatalTurnLimitedError` result; its parser words it with
skill-be's LIMIT_ERROR. The stream has no event per model call: a tool call's turn is one more than
the tool calls before it (the model answers with one call per response). Tokens come from the
`result` event's `stats` (`input_tokens` counts the cached ones).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePosixPath

from skill_be.adapters.gemini_cli import BASE_SETTINGS, FLAGS, KEY_VAR, URL_VAR, usage_of
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
from skill_be.agents.drivers.limit import LIMIT_ERROR

SKILL_TOOL = "activate_skill"  # always allowed, so a skill can be loaded
READ_TOOL = "read_file"  # a read of an installed SKILL.md is a load too
DEFAULT_TOOLS = ("read_file", "write_file", "replace", "run_shell_command", "list_directory", "glob", "grep_search")
BUILTIN_SKILLS = ("skill-creator", "antigravity-support")  # offered in every run unless disabled
TURN_LIMIT_ERROR = "FatalTurnLimitedError"


def settings(tools: list[str], max_turns: int, max_tokens: int | None, model: str) -> dict[str, object]:
    """The private home's `.gemini/settings.json` for one agent run."""
    out: dict[str, object] = {
        **BASE_SETTINGS,
        "skills": {"disabled": list(BUILTIN_SKILLS)},
        "context": {"memoryBoundaryMarkers": []},
        "tools": {"core": tools},
        "model": {"maxSessionTurns": max_turns},
    }
    if max_tokens is not None:
        config = {"generateContentConfig": {"maxOutputTokens": max_tokens}}
        out["modelConfigs"] = {"overrides": [{"match": {"model": model}, "modelConfig": config}]}
    return out


class GeminiDriver:
    name = "gemini"
    providers: tuple[str, ...] = ("gemini",)  # the Gemini API
    # A trigger call may look around and load a skill; it never writes or runs anything.
    trigger_tools: tuple[str, ...] = ("read_file", "list_directory")
    turn_limit = "own"  # model.maxSessionTurns: exactly maxTurns model calls
    # expect.tools' shared names for Gemini's own.
    tool_names: Mapping[str, str] = {"run_shell_command": "shell", "read_file": "read", "write_file": "write",
                                     "replace": "edit", "activate_skill": "skill"}  # fmt: skip

    def __init__(self, bin: str = "gemini", path: str = DEFAULT_PATH) -> None:
        self.bin = bin
        self.path = path

    def tools(self, setup: AgentSetup) -> list[str]:
        return [*chosen_tools(setup, DEFAULT_TOOLS, SKILL_TOOL), SKILL_TOOL]

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        ep = setup.endpoint
        if ep.provider != "gemini":
            raise ValueError(f'Gemini CLI speaks only the Gemini API, not "{ep.provider}"')
        files = skill_files(home / ".agents" / "skills", setup.skills)
        conf = settings(self.tools(setup), setup.limits.max_turns, setup.limits.max_tokens, ep.model)
        files[home / ".gemini" / "settings.json"] = json.dumps(conf, indent=1).encode()
        files[home / ".gemini" / "system-settings.json"] = b"{}\n"  # nothing of /etc/gemini-cli applies
        files[home / "tmp" / ".keep"] = b""
        env = {"HOME": str(home), "TMPDIR": str(home / "tmp"), "PATH": self.path, "LANG": "C.UTF-8", "NO_COLOR": "1",
               "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(home / ".gemini" / "system-settings.json")}  # fmt: skip
        if ep.base_url:
            env[URL_VAR] = ep.base_url
        if ep.api_key:
            env[KEY_VAR] = ep.api_key
        argv = [self.bin, "-m", ep.model, *FLAGS, "--approval-mode", "yolo", f"--prompt={setup.prompt}"]
        return Launch(argv=argv, env=env, files=files, cwd=workspace)

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        t = TranscriptBuilder(setup)
        # A fresh home with the built-in skills off: what is offered is what skill-be installed.
        t.offered = [s.name for s in setup.skills]
        answer: list[str] = []
        ended = False
        for event in events(stdout):
            kind = event.get("type")
            if kind == "tool_use":
                t.turns = len(t.calls) + 1
                answer = []
                t.call(str(event.get("tool_id")), str(event.get("tool_name")), as_dict(event.get("parameters")))
            elif kind == "tool_result":
                self._result(t, event)
            elif kind == "message" and event.get("role") == "assistant":
                if not answer:
                    t.turns = len(t.calls) + 1
                answer.append(str(event.get("content") or ""))
                t.texts = ["".join(answer)]
            elif kind == "result":
                ended = True
                self._end(t, event, setup)
            elif kind == "error":
                t.fail(str(event.get("message") or json.dumps(event)))
        if not ended:  # a start that failed (no auth: exit 41, an untrusted folder: 55) prints no result
            t.fail("Gemini CLI ended without a result (see its stderr)")
        return t.build()

    @staticmethod
    def _result(t: TranscriptBuilder, event: Mapping[str, object]) -> None:
        call_id = str(event.get("tool_id"))
        ok = event.get("status") == "success"
        error = as_dict(event.get("error"))
        t.result(call_id, str(event.get("output") or error.get("message") or ""), not ok)
        i = t.by_id.get(call_id)
        if i is None or not ok:
            return
        call = t.calls[i]
        name = call.arguments.get("name") if call.name == SKILL_TOOL else None
        if call.name == READ_TOOL:
            name = skill_file_read(call.arguments.get("file_path"), t.setup.skills)
        if isinstance(name, str) and name:
            t.mark_loaded(name, call.turn)

    @staticmethod
    def _end(t: TranscriptBuilder, event: Mapping[str, object], setup: AgentSetup) -> None:
        stats = as_dict(event.get("stats"))
        if stats:
            t.add_usage(usage_of(stats))
        if event.get("status") == "success":
            return
        error = as_dict(event.get("error"))
        if error.get("type") == TURN_LIMIT_ERROR:
            n = setup.limits.max_turns
            t.turns = min(max(t.turns, len(t.calls)), n)
            t.fail(LIMIT_ERROR.format(max=n, next=n + 1))
        else:
            t.fail(f"the model call failed: {error.get('message') or json.dumps(error) or 'Gemini CLI failed'}")


def create(**options: str) -> GeminiDriver:
    return GeminiDriver(**options)
