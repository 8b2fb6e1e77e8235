"""The three pinned agent CLIs, driven by skill-be's drivers, as agents with tools in a workspace that
is a git repository, against the scripted agent model on loopback. Each run proves several facts; the
controls at the end switch one protection off and show the leak it stops."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from agent_harness import (
    ALL_CLIS,
    CLIS,
    PARENT_MARKERS,
    SKILL,
    bodies,
    git_workspace,
    plant_parent,
    run_agent,
    setup_for,
    skill,
)

# The CLI's own tool names: the load (Claude and opencode have a skill tool; pi reads SKILL.md).
LOAD = {"claude": "Skill", "pi": "read", "opencode": "skill", "copilot": "skill"}
READ = {"claude": "Read", "pi": "read", "opencode": "read", "copilot": "view"}
WRITE = {"claude": "Write", "pi": "write", "opencode": "write", "copilot": "create"}
SHELL = {"claude": "Bash", "pi": "bash", "opencode": "bash", "copilot": "bash", "codex": "exec_command",
         "gemini": "run_shell_command"}  # fmt: skip
# Copilot CLI offers its skill tool only when a skill is installed: the baseline has the others.
SKILL_TOOL_ONLY_WITH_A_SKILL = {"copilot": "skill"}
NEIGHBOUR = "iso-dates"
from skill_be.agents.drivers.limit import LIMIT_ERROR  # noqa: E402

WORKSPACE_SKILLS = {
    f"{d}/skills/ws-{n}/SKILL.md": f"---\nname: ws-{n}\ndescription: MARKER-workspace-skill\n---\nx\n"
    for d, n in ((".claude", "claude"), (".agents", "agents"), (".pi", "pi"))
}
WORK = {"write": {"path": "out/table.md", "content": "| step | ok |\n"}, "command": "echo ran > ran.txt"}
# Copilot CLI's create tool refuses a file whose folder does not exist yet ("Parent directory does not
# exist"): its script writes at the top of the workspace.
WRITTEN = {"copilot": "table.md"}


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text of each user message (and each text block of one) in a request body."""
    out: list[str] = []
    for m in body.get("messages") or []:
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        else:
            out += [str(c.get("text")) for c in content or [] if isinstance(c, dict) and c.get("type") == "text"]
    return out


def tool_names(server: Any) -> set[str]:
    names: set[str] = set()
    for r in server.model_calls():
        for t in json.loads(r["body"]).get("tools") or []:
            names.add(str((t.get("function") or t).get("name")))
    return names


@pytest.mark.parametrize("cli", CLIS)
def test_the_two_arms_differ_only_by_the_skill_and_a_load_on_turn_2_counts(
    agent_server: Any, tmp_path: Path, cli: str
) -> None:
    plant_parent(tmp_path)
    written = WRITTEN.get(cli, "out/table.md")
    work = {**WORK, "write": {"path": written, "content": "| step | ok |\n"}}
    script = {"skill": SKILL, "load": "after_read", "read": "notes.txt", "final": "ALL DONE", **work}

    # With the skill: read a file, load the skill on turn 2, write a file, run a command, answer. This
    # workspace is no git repository and has skill folders of its own: no driver relies on git to
    # stop the discovery in parent folders, and only the skills skill-be installs are offered.
    agent_server.reset()
    agent_server.agent(**script)
    ws = git_workspace(tmp_path / "with", {"notes.txt": "step1 ok\nstep2 ok\n", **WORKSPACE_SKILLS}, git=False)
    run = run_agent(agent_server, cli, setup_for(agent_server, cli, skills=[skill()]), ws, tmp_path / "home-with")
    t = run.transcript
    assert t.error is None, (t.error, run.stderr[-2000:])
    assert t.skills_offered == (SKILL,)
    assert t.skills_loaded == {SKILL: 2}
    first = t.tool_calls[0]
    assert (first.name, first.turn) == (READ[cli], 1) and "notes.txt" in json.dumps(first.arguments)
    assert "step1 ok" in (first.result or "")
    assert [c.name for c in t.tool_calls[1:]] == [LOAD[cli], WRITE[cli], SHELL[cli]]
    assert not any(c.is_error for c in t.tool_calls), [c for c in t.tool_calls if c.is_error]
    assert (ws / written).read_text() == "| step | ok |\n"
    assert (ws / "ran.txt").read_text() == "ran\n"
    assert t.final_message == "ALL DONE" and t.turns == 5
    assert (t.input_tokens or 0) > 0 and (t.output_tokens or 0) > 0
    log = agent_server.agent_log()
    assert [e["offered"] for e in log if e["cli"] == cli] == [True] * 5
    with_tools = tool_names(agent_server)
    seen = bodies(agent_server)
    assert "TIDY-BODY" in seen  # the skill's body reached the model once loaded
    assert [m for m in PARENT_MARKERS.values() if m in seen] == []
    assert "MARKER-workspace-skill" not in seen
    assert "customize-opencode" not in seen  # opencode's built-in skill is hidden too

    # Baseline: the same script, no skill installed: nothing offered, nothing loaded, same tools.
    agent_server.reset()
    agent_server.agent(**script)
    ws = git_workspace(tmp_path / "base", {"notes.txt": "step1 ok\nstep2 ok\n"})
    base = run_agent(agent_server, cli, setup_for(agent_server, cli), ws, tmp_path / "home-base").transcript
    assert base.error is None
    assert base.skills_offered == () and base.skills_loaded == {}
    assert [c.name for c in base.tool_calls] == [READ[cli], WRITE[cli], SHELL[cli]]
    assert (ws / written).is_file()
    assert [e["offered"] for e in agent_server.agent_log()] == [False] * 4
    assert tool_names(agent_server) == with_tools - {SKILL_TOOL_ONLY_WITH_A_SKILL.get(cli, "")}
    assert SKILL not in bodies(agent_server)


@pytest.mark.parametrize("cli", CLIS)
def test_a_neighbour_loaded_is_recorded_by_name_and_naming_a_skill_is_not_a_load(
    agent_server: Any, tmp_path: Path, cli: str
) -> None:
    agent_server.reset()
    agent_server.agent(skill=NEIGHBOUR, load="offered", mention=SKILL, final="I tidied it.")
    ws = git_workspace(tmp_path / "ws", {"notes.txt": "x\n"})
    neighbour = skill(NEIGHBOUR, "Format dates as ISO 8601. Use for dates.", "NEIGHBOUR-BODY\n")
    setup = setup_for(agent_server, cli, prompt="-x: fix the dates", skills=[skill(), neighbour], max_tokens=321)
    t = run_agent(agent_server, cli, setup, ws, tmp_path / "home").transcript
    assert t.error is None
    assert sorted(t.skills_offered or ()) == sorted([SKILL, NEIGHBOUR])
    assert SKILL in t.final_message and t.skills_loaded == {NEIGHBOUR: 1}
    agent_calls = [json.loads(r["body"]) for r in agent_server.model_calls() if json.loads(r["body"]).get("tools")]
    assert agent_calls and all(SKILL in json.dumps(b) and NEIGHBOUR in json.dumps(b) for b in agent_calls)
    # The prompt arrives as the user wrote it (pi, which has no `--`, adds one leading space to a "-" prompt).
    # Copilot CLI puts a `<current_datetime>` line before it.
    prompts = [re.sub(r"^<current_datetime>[^<]*</current_datetime>\s*", "", p) for p in user_texts(agent_calls[0])]
    assert any(p.strip() == "-x: fix the dates" for p in prompts)
    # maxTokens reaches the request, per model response.
    assert {b.get("max_tokens") or b.get("max_completion_tokens") for b in agent_calls} == {321}


@pytest.mark.parametrize("cli", ALL_CLIS)
@pytest.mark.parametrize("max_turns", [1, 3])
def test_a_run_that_goes_on_ends_at_the_turn_limit_as_an_error_after_exactly_max_turns_model_calls(
    agent_server: Any, tmp_path: Path, cli: str, max_turns: int
) -> None:
    """maxTurns means model calls for every CLI: the agent's conversation gets exactly that many answers
    and the run ends as an error worded the same for all."""
    agent_server.reset()
    agent_server.agent(skill=SKILL, forever=True)
    ws = git_workspace(tmp_path / "ws", {})
    setup = setup_for(agent_server, cli, max_turns=max_turns)
    run = run_agent(agent_server, cli, setup, ws, tmp_path / "home", timeout=60)
    t = run.transcript
    assert t.error == LIMIT_ERROR.format(max=max_turns, next=max_turns + 1), (t.error, run.stdout[-1500:],
                                                                              run.stderr[-1500:])  # fmt: skip
    turns = [e for e in agent_server.agent_log() if e["cli"] == cli]
    assert len(turns) == max_turns  # answered: the one past the limit never reached the model
    assert t.turns == max_turns
    assert [c.name for c in t.tool_calls] == [SHELL[cli]] * max_turns


@pytest.mark.parametrize("cli", ALL_CLIS)
def test_the_control_a_run_that_finishes_under_the_limit_is_no_error(
    agent_server: Any, tmp_path: Path, cli: str
) -> None:
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", command="echo one > one.txt", final="FINISHED")
    ws = git_workspace(tmp_path / "ws", {})
    run = run_agent(agent_server, cli, setup_for(agent_server, cli, max_turns=2), ws, tmp_path / "home", timeout=60)
    assert run.transcript.error is None, (run.transcript.error, run.stderr[-1500:])
    assert run.transcript.final_message == "FINISHED" and (ws / "one.txt").read_text() == "one\n"
    assert len([e for e in agent_server.agent_log() if e["cli"] == cli]) == 2


@pytest.mark.parametrize("cli", CLIS)
def test_an_api_error_ends_the_run_as_the_transcripts_error_without_retrying(
    agent_server: Any, tmp_path: Path, cli: str
) -> None:
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="never", final="never reached")
    agent_server.script(queue=[{"kind": "status", "status": 500}] * 6)
    ws = git_workspace(tmp_path / "ws", {})
    run = run_agent(agent_server, cli, setup_for(agent_server, cli), ws, tmp_path / "home", timeout=60)
    t = run.transcript
    assert t.error is not None and "500" in t.error, (t.error, run.stdout[-1500:], run.stderr[-1500:])
    assert t.final_message != "never reached"
    # Each CLI's own retries are off (opencode's are cut at its first failed request): at most one
    # more call (opencode's title request) than the one that failed.
    assert len(agent_server.model_calls()) <= 2
