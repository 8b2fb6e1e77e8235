"""expect.tools over the pinned CLIs with file tools (Gemini CLI's too): the scripted model reads a file, loads the skill, writes a
file and runs a command with each CLI's own tools; the transcript's calls in the shared vocabulary are
the same for all three (pi's load is a read), and the lines pass and fail as they should."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_harness import CLIS, SKILL, git_workspace, run_agent, setup_for, skill

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import shared_tool
from skill_be.agents.expect import expect_lines
from skill_be.project.agent_world import ToolExpect, World

LOAD = {"claude": "skill", "pi": "read", "opencode": "skill", "copilot": "skill", "gemini": "skill"}


@pytest.mark.parametrize("cli", [*CLIS, "gemini"])
def test_the_shared_names_and_the_lines_across_clis(agent_server: Any, tmp_path: Path, cli: str) -> None:
    agent_server.reset()
    agent_server.agent(skill=SKILL, load="after_read", read="notes.txt", final="DONE",
                       write={"path": "out.txt", "content": "x\n"}, command="echo ran > ran.txt")  # fmt: skip
    ws = git_workspace(tmp_path / "ws", {"notes.txt": "step1 ok\n"})
    run = run_agent(agent_server, cli, setup_for(agent_server, cli, skills=[skill()]), ws, tmp_path / "home")
    assert run.transcript.error is None, run.stderr[-2000:]
    names = [shared_tool(driver(cli), c.name) for c in run.transcript.tool_calls]
    assert names == ["read", LOAD[cli], "write", "shell"]
    world = World(tools=ToolExpect(called=("shell", "write"), not_called=("edit",), order=("read", "write", "shell")))
    assert all(ok for _, ok, _ in expect_lines(world, names, dict(run.transcript.skills_loaded)))
    control = World(tools=ToolExpect(called=("edit",), not_called=("shell",), order=("shell", "write")))
    assert [ok for _, ok, _ in expect_lines(control, names, {})] == [False, False, False]
