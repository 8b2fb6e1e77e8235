"""MCP servers per pinned CLI: the scenario's stdio server (tests/support/mcp_server.py) is handed to
Claude Code, opencode, Codex CLI (`-c mcp_servers.<name>=...`) and Copilot CLI
(`--additional-mcp-config @file`) in their own configuration form, the scripted model calls its tool, the
server answers (its log shows the call, its answer carries the env it was given), the transcript
names the call `mcp:<server>/<tool>` and `expect.tools.called` on it passes; the control: the same
run where the model does not call it, and the line fails. pi cannot take MCP servers (its driver says
so, and the run is refused before any call: tests/integration/agent_run/test_world_run.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_harness import SUPPORT, ams, git_workspace, run_agent, setup_for

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import McpServerSpec, shared_tool, takes_mcp
from skill_be.agents.expect import expect_lines
from skill_be.project.agent_world import ToolExpect, World

WORLD = World(tools=ToolExpect(called=("mcp:facts/lookup",)))


@pytest.mark.parametrize("cli", ["claude", "opencode", "codex", "copilot"])
def test_the_cli_starts_the_server_and_its_call_is_a_line(agent_server: Any, tmp_path: Path, cli: str) -> None:
    calls = tmp_path / "calls.txt"
    server = McpServerSpec("facts", sys.executable, (str(SUPPORT / "mcp_server.py"), str(calls)), {"FACT": "blue"})
    base = setup_for(agent_server, cli)
    setup = type(base)(**{**base.__dict__, "mcp": (server,)})
    agent_server.reset()
    agent_server.agent(mcp={"tool": "lookup", "input": {"key": "colour"}}, final="DONE")
    ws = git_workspace(tmp_path / "ws", {"notes.txt": "x\n"})
    run = run_agent(agent_server, cli, setup, ws, tmp_path / "home")
    t = run.transcript
    assert t.error is None, run.stderr[-2000:]
    names = [shared_tool(driver(cli), c.name, ["facts"]) for c in t.tool_calls]
    assert names == ["mcp:facts/lookup"], [c.name for c in t.tool_calls]
    assert "MCP-ANSWER:colour:blue" in (t.tool_calls[0].result or "")
    assert calls.read_text() == "colour\n"  # the server itself answered
    assert [ok for _, ok, _ in expect_lines(WORLD, names, {})] == [True]
    # The control: the same server offered, the model answers without calling it.
    agent_server.reset()
    agent_server.agent(final="DONE")
    ws = git_workspace(tmp_path / "ws2", {"notes.txt": "x\n"})
    run = run_agent(agent_server, cli, setup, ws, tmp_path / "home2")
    names = [shared_tool(driver(cli), c.name, ["facts"]) for c in run.transcript.tool_calls]
    assert names == [] and [ok for _, ok, _ in expect_lines(WORLD, names, {})] == [False]
    assert calls.read_text() == "colour\n"
    assert all(any(n.endswith("lookup") for n in offered) for offered in offered_tools(agent_server))
    # The control of the configuration: no server in the scenario, the same script: no such tool is
    # offered, the model's call of it fails and is no MCP call, and the server never ran.
    agent_server.reset()
    agent_server.agent(mcp={"tool": "lookup", "input": {"key": "colour"}}, final="DONE")
    ws = git_workspace(tmp_path / "ws3", {"notes.txt": "x\n"})
    run = run_agent(agent_server, cli, base, ws, tmp_path / "home3")
    assert [n for offered in offered_tools(agent_server) for n in offered if n.endswith("lookup")] == []
    names = [shared_tool(driver(cli), c.name, ["facts"]) for c in run.transcript.tool_calls]
    assert "mcp:facts/lookup" not in names and [ok for _, ok, _ in expect_lines(WORLD, names, {})] == [False]
    assert calls.read_text() == "colour\n"


def offered_tools(server: Any) -> list[list[str]]:
    """The tool names each agent request offered (Codex's MCP tools as `mcp__<server>__<tool>`)."""
    return [list(ams.tools_of(json.loads(r["body"]))) for r in server.model_calls()]


def test_pi_cannot_take_mcp_servers() -> None:
    assert not takes_mcp(driver("pi"))
    assert all(takes_mcp(driver(cli)) for cli in ("claude", "opencode", "codex", "copilot"))
