"""A scripted *agent* model for the agent-mode tests: the mock model server (mock_model_server.py) that
also speaks tool use, streamed, in the Anthropic Messages format (`tool_use` / `tool_result`), the
OpenAI chat-completions format (`tool_calls` / role `tool`) and the OpenAI Responses format
(`function_call` output items / `function_call_output` input items) and the Gemini API
(`:streamGenerateContent` with `functionCall` parts / `functionResponse` parts), which is what Claude
Code, pi, opencode, Codex CLI and Gemini CLI call.

Run it as a program, like the mock (it prints its TCP port first; the test steers it through the unix
control socket):

    python agent_model_server.py --control /tmp/x.sock [--lo-up]

The script is set with `POST /__mock/agent` (or `AgentServer.agent(...)`) and decides every reply from
the request alone, so one server serves many runs at once:

    {"skill": "tidy-logs",        the skill under test (its name)
     "load": "offered",           offered: load it on the first turn when it is offered
                                  after_read: read `read` first, then load it on turn 2 (when offered)
                                  never: never load it; mention: never load it, but name it in the answer
     "read": "notes.txt",         the file read first with "after_read" (relative to the workspace)
     "write": {"path": "out.txt", "content": "..."},   written with the CLI's own write tool
     "command": "echo ran > ran.txt",                  run with the CLI's own shell tool
     "followUp": {"marker": "AGAIN", "command": "...", "final": "..."},   when the latest user message
                                                       has the marker: run the command, then answer final
     "mcp": {"tool": "lookup", "input": {...}},        the offered tool whose name ends with "lookup"
                                                       (an MCP server's, as the CLI names it; Codex's
                                                       are in a namespace `mcp__<server>`, and the call
                                                       names that namespace)
     "final": "DONE",             the last answer's text
     "mention": "other-skill",    a skill the last answer names (without loading it)
     "forever": false,            true: call the shell tool on every turn and never answer (limit tests)
     "choose": [["word", "skill"], ...],  trigger evals: the skill is the one of the first word found in
                                  the prompt (the last user message); no word found: no skill
     "cwd": null}                 the workspace as the CLI sees it; null: read from the system prompt

How a load looks is the CLI's own: Claude Code `Skill {"skill": name}`, opencode `skill {"name": name}`,
Copilot CLI `skill {"skill": name}` (its write tool is `create {path, file_text}`, its read `view`),
pi `read {"path": <location>}` with the location from its `<available_skills>` block, Codex (no skill
tool, no file tools) `exec_command {"cmd": "cat <path>"}` with the path from its `<skills_instructions>`
(a skill root and a path under it); Codex reads, writes and runs everything through `exec_command`;
Gemini CLI `activate_skill {"name": name}` (its tools `read_file`, `write_file {file_path, content}`,
`run_shell_command {command}`). Which CLI is
calling is read from the tools it offers. A request without tools (a title generator, a side call)
gets a short text answer.

`GET /__mock/agent/log` returns one entry per model call: {"cli", "offered", "step", "action"}.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
import uuid
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mock_model_server as mms  # the folder is put on sys.path just above

_CWD = re.compile(
    r"(?:Primary working directory|Current working directory|Working directory):\s*(/\S+)|<cwd>(/[^<]+)</cwd>"
    r"|Workspace Directories:\*\*\n\s*- (/\S+)"  # Gemini CLI's session context
)


class AgentState(mms.State):
    def __init__(self) -> None:
        super().__init__()
        self.agent: dict[str, Any] | None = None
        self.agent_log: list[dict[str, Any]] = []


# -- reading the request ----------------------------------------------------------------------------
def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(c.get("text") if isinstance(c, dict) else c) for c in content)
    return ""


def tools_of(req: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name -> {"description", "properties", "required"}, from either wire format."""
    out: dict[str, dict[str, Any]] = {}
    for t in gemini_declarations(req) or req.get("tools") or []:
        if t.get("type") == "namespace":  # Codex's MCP server: a namespace `mcp__<server>` of its tools
            for inner in t.get("tools") or []:
                spec = _tool_spec(inner)
                out[f"{t.get('name')}__{inner.get('name')}"] = {**spec, "namespace": str(t.get("name"))}
            continue
        fn = t.get("function") if isinstance(t.get("function"), dict) else t
        out[str(fn.get("name"))] = _tool_spec(fn)
    return out


def _tool_spec(fn: dict[str, Any]) -> dict[str, Any]:
    schema = fn.get("input_schema") or fn.get("parameters") or fn.get("parametersJsonSchema") or {}
    return {
        "description": str(fn.get("description") or ""),
        "properties": dict(schema.get("properties") or {}),
        "required": list(schema.get("required") or []),
    }


# -- the Gemini API's request shape (Gemini CLI) --------------------------------------------------------
def gemini_declarations(req: dict[str, Any]) -> list[dict[str, Any]]:
    """A Gemini request's function declarations; [] for the other wire formats."""
    return mms.gemini_tools(req) if isinstance(req.get("contents"), list) else []


def gemini_messages(req: dict[str, Any]) -> list[dict[str, Any]]:
    """A Gemini request's `contents` as messages: role user or assistant (Gemini's `model`), the text of
    its text parts, and `type: function_call` for a model content with a functionCall part."""
    out: list[dict[str, Any]] = []
    for c in req.get("contents") or []:
        if not isinstance(c, dict):
            continue
        parts = [p for p in c.get("parts") or [] if isinstance(p, dict)]
        text = "\n".join(str(p["text"]) for p in parts if "text" in p and not p.get("thought"))
        role = "assistant" if c.get("role") == "model" else "user"
        if role == "assistant" and any("functionCall" in p for p in parts):
            out.append({"type": "function_call"})
        elif text or role == "assistant":
            out.append({"role": role, "content": text})
    return out


def system_text(req: dict[str, Any]) -> str:
    """Everything that is not the user's own words: the system prompt(s), system-role messages
    (Claude Code puts its skill list in one inside messages[]) and the tools' descriptions."""
    gemini_system = req.get("systemInstruction")
    if isinstance(gemini_system, dict):
        gemini_system = gemini_system.get("parts")
    parts = [_text(req.get("system")), _text(req.get("instructions")), _text(gemini_system)]
    for m in messages_of(req):
        if m.get("role") in ("system", "developer"):
            parts.append(_text(m.get("content")))
        elif m.get("role") == "user":
            # Claude Code wraps its skill listing in a <system-reminder> inside a user message; Codex
            # puts its working directory in an <environment_context> one, Gemini CLI in <session_context>.
            text = _text(m.get("content"))
            tags = r"<(system-reminder|environment_context|session_context)>.*?</\1>"
            parts += [found.group(0) for found in re.finditer(tags, text, re.S)]
    parts += [t["description"] for t in tools_of(req).values()]
    return "\n".join(parts)


def messages_of(req: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation: `messages` (chat completions, Anthropic) or `input` items (Responses)."""
    if isinstance(req.get("contents"), list):
        return gemini_messages(req)
    items = req.get("messages") or req.get("input") or []
    return [m for m in items if isinstance(m, dict)] if isinstance(items, list) else []


def prompt_of(req: dict[str, Any]) -> str:
    """The user's own words: the text of the last user message, without the blocks a CLI adds to it."""
    users = [m for m in messages_of(req) if m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    text = "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") != "tool_result")
    return re.sub(r"<(system-reminder|environment_context|session_context)>.*?</\1>", "", text, flags=re.S)


def tool_steps_so_far(req: dict[str, Any]) -> int:
    """How many assistant turns with tool calls the conversation already has (in the Responses format,
    each `function_call` input item is one: this server makes one call per turn)."""
    n = 0
    for m in messages_of(req):
        if m.get("type") == "function_call":
            n += 1
            continue
        if m.get("role") != "assistant":
            continue
        content = m.get("content")
        if m.get("tool_calls") or (
            isinstance(content, list) and any(isinstance(c, dict) and c.get("type") == "tool_use" for c in content)
        ):
            n += 1
    return n


def latest_prompt(req: dict[str, Any]) -> tuple[str, int]:
    """The text of the latest user message that is a prompt (not only tool results, nor only the blocks
    a CLI adds, such as Codex's `<environment_context>`), and how many assistant turns with tool calls
    came after it (in the Responses format, each `function_call` input item is one)."""
    text, calls = "", 0
    for m in messages_of(req):
        content = m.get("content")
        if m.get("type") == "function_call":
            calls += 1
        elif m.get("role") == "user":
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            said = [
                str(b.get("text"))
                for b in blocks
                if isinstance(b, dict) and b.get("type") in ("text", "input_text") and _own_words(str(b.get("text")))
            ]
            if said:
                text, calls = "\n".join(said), 0
        elif m.get("role") == "assistant" and (
            m.get("tool_calls")
            or (isinstance(content, list) and any(isinstance(c, dict) and c.get("type") == "tool_use" for c in content))
        ):
            calls += 1
    return text, calls


def _own_words(text: str) -> bool:
    """Whether a user block has words of the user's: not only tagged blocks a CLI adds to a message."""
    return "<system-reminder>" not in text and bool(re.sub(r"<([a-z_]+)>.*?</\1>", "", text, flags=re.S).strip())


def cli_of(tools: dict[str, dict[str, Any]]) -> str:
    if "exec_command" in tools:
        return "codex"
    if "run_shell_command" in tools or "activate_skill" in tools or "read_file" in tools:
        return "gemini"
    if "Skill" in tools or "Bash" in tools:
        return "claude"
    if "view" in tools or "skill" in tools.get("skill", {}).get("properties", {}):
        return "copilot"
    if "skill" in tools or any("filePath" in t["properties"] for t in tools.values()):
        return "opencode"
    return "pi"


def _tool(tools: dict[str, dict[str, Any]], *names: str) -> tuple[str, dict[str, Any]] | None:
    for n in names:
        if n in tools:
            return n, tools[n]
    return None


def _path_key(props: dict[str, Any]) -> str:
    return next((k for k in ("file_path", "filePath", "path") if k in props), "path")


def pi_location(system: str, skill: str) -> str | None:
    m = re.search(rf"<name>{re.escape(skill)}</name>.*?<location>(.*?)</location>", system, re.S)
    return m.group(1).strip() if m else None


def codex_location(system: str, skill: str) -> str | None:
    """The SKILL.md path from Codex's skill list: `- name: description (file: r0/name/SKILL.md)` under
    a table of roots (`- `r0` = `/abs/dir``)."""
    m = re.search(rf"^- {re.escape(skill)}: .*\(file: ([^)]+)\)\s*$", system, re.M)
    if not m:
        return None
    path = m.group(1).strip()
    root, _, rest = path.partition("/")
    r = re.search(rf"^- `{re.escape(root)}` = `([^`]+)`", system, re.M)
    return f"{r.group(1)}/{rest}" if r else path


# -- deciding the next step ---------------------------------------------------------------------------
def plan(script: dict[str, Any], offered: bool) -> list[tuple[str, Any]]:
    steps: list[tuple[str, Any]] = []
    load = script.get("load", "offered")
    if load == "after_read":
        steps.append(("read", script.get("read", "README.md")))
    if offered and load in ("offered", "after_read"):
        steps.append(("load", script["skill"]))
    if script.get("write"):
        steps.append(("write", script["write"]))
    if script.get("command"):
        steps.append(("bash", script["command"]))
    if script.get("mcp"):
        steps.append(("mcp", script["mcp"]))
    return steps


def decide(script: dict[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    """The next action for this request: {"kind": "tool", "name", "input"} or {"kind": "text", "text"}."""
    tools = tools_of(req)
    cli = cli_of(tools)
    system = system_text(req)
    if script.get("choose"):
        said = prompt_of(req)
        script = {**script, "skill": next((sk for word, sk in script["choose"] if word in said), None)}
    skill = str(script.get("skill") or "")
    # Codex's own prompt holds common words ("greetings"): there a skill is offered when its skill list has it.
    offered = bool(skill) and (codex_location(system, skill) is not None if cli == "codex" else skill in system)
    step = tool_steps_so_far(req)
    base = {"cli": cli, "offered": offered, "step": step}
    if not tools:  # a side call (opencode's title, ...): not the agent's turn
        return {**base, "cli": "none", "kind": "text", "text": "skill-be agent test"}
    m = _CWD.search(system)
    cwd = str(script.get("cwd") or (next(g for g in m.groups() if g) if m else "."))

    def absolute(p: str) -> str:
        return p if p.startswith("/") else os.path.join(cwd, p)

    if script.get("forever"):
        return {**base, **_bash(tools, f"echo turn {step}")}
    follow = script.get("followUp")
    if follow and str(follow["marker"]) in latest_prompt(req)[0]:
        if latest_prompt(req)[1] == 0:
            return {**base, **_bash(tools, str(follow["command"]))}
        return {**base, "kind": "text", "text": str(follow.get("final", "DONE AGAIN"))}
    steps = plan(script, offered)
    if cli == "codex" and step < len(steps) and steps[step][0] != "mcp":
        return {**base, **_bash(tools, _codex_command(steps[step], system, absolute))}
    if step >= len(steps):
        text = str(script.get("final", "DONE"))
        named = script.get("mention") or (skill if script.get("load") == "mention" else None)
        if named:
            text += f" (the {named} skill would fit here, but I did not need it)"
        return {**base, "kind": "text", "text": text}
    kind, arg = steps[step]
    if kind == "load":
        if cli == "claude":
            return {**base, "kind": "tool", "name": "Skill", "input": {"skill": arg}}
        if cli == "opencode":
            return {**base, "kind": "tool", "name": "skill", "input": {"name": arg}}
        if cli == "copilot":
            return {**base, "kind": "tool", "name": "skill", "input": {"skill": arg}}
        if cli == "gemini":
            return {**base, "kind": "tool", "name": "activate_skill", "input": {"name": arg}}
        location = pi_location(system, arg)
        found = _tool(tools, "read")
        return {**base, "kind": "tool", "name": found[0] if found else "read", "input": {"path": location}}
    if kind == "read":
        name, spec = _tool(tools, "Read", "read", "view", "read_file") or ("read", {"properties": {}})
        return {**base, "kind": "tool", "name": name, "input": {_path_key(spec["properties"]): absolute(arg)}}
    if kind == "mcp":
        suffix = str(arg["tool"])
        name = next((n for n in tools if n.endswith(suffix) and n != suffix), suffix)
        action = {**base, "kind": "tool", "name": name, "input": dict(arg.get("input") or {})}
        namespace = tools.get(name, {}).get("namespace")
        return {**action, "namespace": namespace, "name": name[len(namespace) + 2 :]} if namespace else action
    if kind == "write":
        name, spec = _tool(tools, "Write", "write", "create", "write_file") or ("write", {"properties": {}})
        content_key = "file_text" if "file_text" in spec["properties"] else "content"
        args = {_path_key(spec["properties"]): absolute(arg["path"]), content_key: arg["content"]}
        return {**base, "kind": "tool", "name": name, "input": args}
    return {**base, **_bash(tools, str(arg))}


def _codex_command(step: tuple[str, Any], system: str, absolute: Any) -> str:
    """Codex has only its shell: a load or a read is a `cat`, a write a `printf` into the file."""
    kind, arg = step
    if kind == "load":
        return "cat " + shlex.quote(codex_location(system, arg) or f".agents/skills/{arg}/SKILL.md")
    if kind == "read":
        return "cat " + shlex.quote(absolute(arg))
    if kind == "write":
        path = absolute(arg["path"])
        return f"mkdir -p {shlex.quote(os.path.dirname(path))} && printf %s {shlex.quote(arg['content'])} > {shlex.quote(path)}"
    return str(arg)


def _bash(tools: dict[str, dict[str, Any]], command: str) -> dict[str, Any]:
    if "exec_command" in tools:
        return {"kind": "tool", "name": "exec_command", "input": {"cmd": command}}
    name, spec = _tool(tools, "Bash", "bash", "run_shell_command") or ("bash", {"properties": {}})
    args: dict[str, Any] = {"command": command}
    if "description" in spec["properties"]:
        args["description"] = "run a command"
    return {"kind": "tool", "name": name, "input": args}


# -- the wire ------------------------------------------------------------------------------------------
class AgentHandler(mms.Handler):
    def _script(self) -> dict[str, Any] | None:
        state: AgentState = self.server.state
        with state.lock:
            return dict(state.agent) if state.agent is not None else None

    def _act(self, req: dict[str, Any]) -> dict[str, Any] | None:
        script = self._script()
        if script is None:
            return None
        action = decide(script, req)
        state: AgentState = self.server.state
        with state.lock:
            state.agent_log.append({k: action.get(k) for k in ("cli", "offered", "step", "kind", "name", "input")})
        return action

    def _anthropic(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        action = self._act(req)
        if action is None or not req.get("stream"):
            return super()._anthropic(req, model, action["text"] if action and "text" in action else text, tin, tout)
        mid = "msg_" + uuid.uuid4().hex[:20]
        start = {"type": "message", "role": "assistant", "model": model, "content": [], "id": mid,
                 "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": tin, "output_tokens": 1}}  # fmt: skip
        events: list[tuple[str | None, object]] = [("message_start", {"type": "message_start", "message": start})]
        if action["kind"] == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": action["text"]}
            stop = "end_turn"
        else:
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": action["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(action["input"])}
            stop = "tool_use"
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": tout}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        self._sse(events)

    def _openai(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        action = self._act(req)
        if action is None or not req.get("stream") or action["kind"] == "text":
            return super()._openai(req, model, action["text"] if action and "text" in action else text, tin, tout)
        cid = "chatcmpl-" + uuid.uuid4().hex[:20]
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip

        call = {"index": 0, "id": "call_" + uuid.uuid4().hex[:20], "type": "function",
                "function": {"name": action["name"], "arguments": ""}}  # fmt: skip
        args = {"index": 0, "function": {"arguments": json.dumps(action["input"])}}
        usage = {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}
        self._sse(
            [
                (None, chunk({"role": "assistant", "content": None, "tool_calls": [call]}, None)),
                (None, chunk({"tool_calls": [args]}, None)),
                (None, {**chunk({}, "tool_calls"), "usage": usage}),
                (None, "[DONE]"),
            ]
        )

    def _responses(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        action = self._act(req)
        if action is None or not req.get("stream") or action["kind"] == "text":
            return super()._responses(req, model, action["text"] if action and "text" in action else text, tin, tout)
        item = mms.responses_call(action["name"], action["input"])
        if action.get("namespace"):  # a tool of a namespace (Codex's MCP servers) names its namespace
            item["namespace"] = action["namespace"]
        self._sse(mms.responses_events(model, [item], mms.responses_usage(tin, tout, cached=tin // 2)))

    def _gemini(self, req: dict[str, Any], model: str, text: str, tin: int, tout: int) -> None:
        action = self._act(req)
        if action is None or action["kind"] == "text":
            return super()._gemini(req, model, action["text"] if action and "text" in action else text, tin, tout)
        part = mms.gemini_call_part(action["name"], action["input"])
        self._sse(mms.gemini_chunks(model, [part], mms.gemini_usage(tin, tout, cached=tin // 2)))

    def _control(self, state: mms.State, path: str, body: bytes) -> None:
        assert isinstance(state, AgentState)
        if path == "/__mock/agent":
            with state.lock:
                state.agent = json.loads(body or b"null")
            return self._json(200, {})
        if path == "/__mock/agent/log":
            with state.lock:
                return self._json(200, list(state.agent_log))
        if path == "/__mock/reset":
            with state.lock:
                state.agent_log.clear()
        return super()._control(state, path, body)


def main(argv: list[str] | None = None) -> int:
    mms.State = AgentState  # type: ignore[misc]  # main() builds its State by this name
    mms.Handler = AgentHandler  # type: ignore[misc]
    return mms.main(argv)


class AgentServer(mms.MockServer):
    """The test's handle: MockServer's, started from this program, plus the agent script and log."""

    program = os.path.abspath(__file__)
    socket_name = "agent-control.sock"
    what = "agent model server"

    def agent(self, **script: Any) -> None:
        self._call("POST", "/__mock/agent", script)

    def agent_log(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "/__mock/agent/log"))


if __name__ == "__main__":
    raise SystemExit(main())
