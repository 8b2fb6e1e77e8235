"""Follow-up turns per pinned CLI, on this machine (the container run of the same is in
tests/integration/agent_run/test_world_containers.py): the launch's follow-ups run after the prompt's
run in the same private home and workspace (Claude Code and Copilot CLI `--resume <id>`, pi and
opencode `--continue`, Codex `exec resume --last`); the follow-up's request carries the first turn's
conversation, its command changes the workspace, and the one transcript holds both turns. The control:
the same scenario without the follow-up leaves the first turn's end state. And the prompt and its
follow-ups share agent.maxTurns: skill-be's relay refuses the call past it, whichever run makes it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from agent_harness import ALL_CLIS, git_workspace, run_agent, setup_for

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import resumes, shared_tool
from skill_be.agents.drivers.limit import LIMIT_ERROR

FOLLOW_UP = "AGAIN: now write second.txt too."
SCRIPT = {"write": {"path": "first.txt", "content": "one\n"}, "final": "DONE ONE",
          "followUp": {"marker": "AGAIN", "command": "echo two > second.txt", "final": "DONE TWO"}}  # fmt: skip
# The first turn's write: codex writes through its shell.
WRITE = {"codex": "shell"}
# The CLIs whose driver resumes a session; the others (Gemini CLI) refuse followUps before any call.
RESUMING = [c for c in ALL_CLIS if resumes(driver(c))]


def test_every_cli_but_gemini_resumes() -> None:
    assert sorted(set(ALL_CLIS) - set(RESUMING)) == ["gemini"]


@pytest.mark.parametrize("cli", RESUMING)
def test_a_follow_up_reaches_the_same_session_and_changes_the_workspace(
    agent_server: Any, tmp_path: Path, cli: str
) -> None:
    agent_server.reset()
    agent_server.agent(**SCRIPT)
    setup = replace(setup_for(agent_server, cli, prompt="Write first.txt."), follow_ups=(FOLLOW_UP,))
    ws = git_workspace(tmp_path / "ws", {"README.md": "x\n"})
    run = run_agent(agent_server, cli, setup, ws, tmp_path / "home", timeout=150)
    t = run.transcript
    assert run.returncode == 0 and t.error is None, (run.stderr[-2000:], run.stdout[-2000:])
    assert (ws / "first.txt").read_text() == "one\n" and (ws / "second.txt").read_text() == "two\n"
    assert t.final_message == "DONE TWO"
    names = [shared_tool(driver(cli), c.name) for c in t.tool_calls]
    assert names == [WRITE.get(cli, "write"), "shell"] and [c.turn for c in t.tool_calls] == [1, 3]
    assert t.turns == 4
    # The follow-up's requests carry the first turn: the prompt and the first answer before it.
    agent = [r["body"] for r in agent_server.model_calls() if FOLLOW_UP in r["body"]]
    assert len(agent) == 2 and all("Write first.txt." in b and "DONE ONE" in b for b in agent)
    # The control: no follow-up, the first turn's end state.
    agent_server.reset()
    agent_server.agent(**SCRIPT)
    ws = git_workspace(tmp_path / "ws2", {"README.md": "x\n"})
    run = run_agent(agent_server, cli, replace(setup, follow_ups=()), ws, tmp_path / "home2")
    assert run.transcript.final_message == "DONE ONE" and not (ws / "second.txt").exists()
    assert [r for r in agent_server.model_calls() if FOLLOW_UP in r["body"]] == []


@pytest.mark.parametrize("cli", ["opencode", "codex", "copilot"])
def test_the_follow_ups_model_calls_count_in_max_turns(agent_server: Any, tmp_path: Path, cli: str) -> None:
    """maxTurns 3: the prompt's run makes calls 1 and 2, the follow-up's call 3 runs its command and
    call 4 never reaches the model (the relay's count is one for all the runs)."""
    agent_server.reset()
    agent_server.agent(**SCRIPT)
    base = setup_for(agent_server, cli, prompt="Write first.txt.", max_turns=3)
    ws = git_workspace(tmp_path / "ws", {"README.md": "x\n"})
    run = run_agent(agent_server, cli, replace(base, follow_ups=(FOLLOW_UP,)), ws, tmp_path / "home", timeout=150)
    assert run.transcript.error == LIMIT_ERROR.format(max=3, next=4), (run.stderr[-2000:], run.transcript)
    assert len([r for r in agent_server.agent_log() if r["cli"] != "none"]) == 3
    assert (ws / "second.txt").read_text() == "two\n" and run.transcript.final_message != "DONE TWO"
