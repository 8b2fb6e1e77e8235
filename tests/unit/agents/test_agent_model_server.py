"""The scripted agent model's decisions (tests/support/agent_model_server.py), from requests shaped like
each CLI's: which CLI is calling, whether the skill is offered, and the next step of the script."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

SUPPORT = Path(__file__).resolve().parents[2] / "support"


def _load() -> ModuleType:
    sys.path.insert(0, str(SUPPORT))
    spec = importlib.util.spec_from_file_location("agent_model_server", SUPPORT / "agent_model_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ams = _load()
SCRIPT = {"skill": "tidy", "load": "after_read", "read": "notes.txt", "write": {"path": "o.txt", "content": "x"},
          "command": "echo hi", "final": "DONE"}  # fmt: skip


def claude(messages: list[dict[str, Any]], listed: bool = True) -> dict[str, Any]:
    reminder = "<system-reminder>skills: - tidy: Tidy logs.</system-reminder>" if listed else ""
    tools = [{"name": n, "description": "", "input_schema": {"properties": props}} for n, props in
             (("Skill", {"skill": {}}), ("Read", {"file_path": {}}), ("Write", {"file_path": {}, "content": {}}),
              ("Bash", {"command": {}, "description": {}}))]  # fmt: skip
    first = {"role": "user", "content": [{"type": "text", "text": reminder}, {"type": "text", "text": "go"}]}
    return {"system": "Primary working directory: /ws", "tools": tools, "messages": [first, *messages]}


def tool_turn(fmt: str) -> dict[str, Any]:
    if fmt == "anthropic":
        return {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}
    return {"role": "assistant", "tool_calls": [{"id": "t", "function": {"name": "x", "arguments": "{}"}}]}


def openai(tools: dict[str, dict[str, Any]], system: str, turns: int) -> dict[str, Any]:
    specs = [{"type": "function", "function": {"name": n, "description": "", "parameters": {"properties": p}}}
             for n, p in tools.items()]  # fmt: skip
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "go"}]
    return {"tools": specs, "messages": messages + [tool_turn("openai")] * turns}


def test_claude_reads_first_then_loads_with_the_skill_tool_then_writes_runs_and_answers() -> None:
    steps = [ams.decide(SCRIPT, claude([tool_turn("anthropic")] * n)) for n in range(5)]
    assert [(s["cli"], s["offered"]) for s in steps] == [("claude", True)] * 5
    assert [s.get("name") for s in steps] == ["Read", "Skill", "Write", "Bash", None]
    assert steps[0]["input"] == {"file_path": "/ws/notes.txt"} and steps[1]["input"] == {"skill": "tidy"}
    assert steps[3]["input"] == {"command": "echo hi", "description": "run a command"}
    assert steps[4]["text"] == "DONE"


def test_a_skill_named_only_by_the_user_is_not_offered_and_never_loaded() -> None:
    request = claude([], listed=False)
    request["messages"][0]["content"][1]["text"] = "please use tidy"
    step = ams.decide({**SCRIPT, "load": "offered"}, request)
    assert step["offered"] is False and step["name"] == "Write"


def test_pi_loads_by_reading_the_location_of_its_available_skills_block() -> None:
    system = ("Current working directory: /ws\n<available_skills><skill><name>tidy</name><description>d</description>"
              "<location>/h/skills/tidy/SKILL.md</location></skill></available_skills>")  # fmt: skip
    tools = {"read": {"path": {}}, "write": {"path": {}, "content": {}}, "bash": {"command": {}}}
    step = ams.decide(SCRIPT, openai(tools, system, 1))
    assert (step["cli"], step["name"], step["input"]) == ("pi", "read", {"path": "/h/skills/tidy/SKILL.md"})


def test_opencode_loads_with_its_skill_tool_and_a_tool_less_call_is_a_side_call() -> None:
    tools = {"read": {"filePath": {}}, "skill": {"name": {}}, "bash": {"command": {}, "description": {}}}
    step = ams.decide({**SCRIPT, "load": "offered"}, openai(tools, "Working directory: /ws\n- tidy: Tidy logs.", 0))
    assert (step["cli"], step["name"], step["input"]) == ("opencode", "skill", {"name": "tidy"})
    side = ams.decide(SCRIPT, {"messages": [{"role": "user", "content": "Generate a title"}]})
    assert (side["cli"], side["kind"]) == ("none", "text")


def test_mention_names_the_skill_in_the_answer_and_forever_never_answers() -> None:
    answer = ams.decide({"skill": "tidy", "load": "mention", "final": "ok"}, claude([]))
    assert answer["kind"] == "text" and "tidy" in answer["text"]
    assert {ams.decide({"skill": "tidy", "forever": True}, claude([tool_turn("anthropic")] * n))["name"]
            for n in range(30)} == {"Bash"}  # fmt: skip


def codex(items: list[dict[str, Any]], namespace: bool = True) -> dict[str, Any]:
    tools: list[dict[str, Any]] = [{"type": "function", "name": "exec_command", "parameters": {"properties": {}}}]
    if namespace:
        lookup = {"type": "function", "name": "lookup", "parameters": {"properties": {"key": {}}}}
        tools.append({"type": "namespace", "name": "mcp__facts", "tools": [lookup]})
    return {"stream": True, "tools": tools, "input": items}


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_codex_calls_a_namespaced_mcp_tool_by_its_namespace_and_other_steps_through_its_shell() -> None:
    script = {"mcp": {"tool": "lookup", "input": {"key": "k"}}, "final": "DONE"}
    action = ams.decide(script, codex([user("look k up")]))
    assert (action["kind"], action["name"], action["namespace"], action["input"]) == ("tool", "lookup", "mcp__facts",
                                                                                      {"key": "k"})  # fmt: skip
    # Without the server the tool is not offered: the call names the bare tool, with no namespace.
    bare = ams.decide(script, codex([user("look k up")], namespace=False))
    assert bare["name"] == "lookup" and "namespace" not in bare
    assert ams.decide({"command": "echo hi"}, codex([user("x")]))["input"] == {"cmd": "echo hi"}


def test_a_follow_up_in_the_responses_format_is_found_after_codex_s_own_blocks() -> None:
    script = {"final": "ONE", "followUp": {"marker": "AGAIN", "command": "echo two", "final": "TWO"}}
    first = [user("<environment_context><cwd>/w</cwd></environment_context>"), user("Write it.")]
    answered = [*first, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ONE"}]}]
    follow = [*answered, user("<environment_context><cwd>/w</cwd></environment_context>"), user("AGAIN: more")]
    assert ams.decide(script, codex(first))["text"] == "ONE"
    assert ams.decide(script, codex(follow))["input"] == {"cmd": "echo two"}
    call = {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c"}
    done = [*follow, call, {"type": "function_call_output", "call_id": "c", "output": ""}]
    assert ams.decide(script, codex(done))["text"] == "TWO"
