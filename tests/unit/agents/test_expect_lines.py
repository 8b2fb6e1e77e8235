"""expect.tools and the skill lists as lines: each kind passes and fails as it should, over the shared
vocabulary each driver maps its CLI's tool names into (and a driver that sets nothing keeps the default)."""

from __future__ import annotations

from typing import Any

import pytest

from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import DEFAULT_TOOL_NAMES, resumes, shared_tool, takes_mcp
from skill_be.agents.expect import expect_line_names, expect_lines, in_order, shared_calls
from skill_be.project.agent_world import ToolExpect, World


def lines(world: World, calls: list[str], loaded: dict[str, int] | None = None) -> dict[str, tuple[bool, Any]]:
    got = expect_lines(world, calls, loaded or {})
    assert [n for n, _, _ in got] == list(expect_line_names(world))  # the names known before the run
    return {n: (ok, msg) for n, ok, msg in got}


def test_called_passes_when_called_and_fails_when_not() -> None:
    world = World(tools=ToolExpect(called=("shell", "mcp:lint/check")))
    got = lines(world, ["read", "shell"])
    assert got["tool called: shell"] == (True, None)
    assert got["tool called: mcp:lint/check"] == (False, "never called; calls: read, shell")
    assert lines(world, ["mcp:lint/check", "shell"])["tool called: mcp:lint/check"][0] is True


def test_not_called_fails_when_called_and_says_how_often() -> None:
    world = World(tools=ToolExpect(not_called=("write",)))
    assert lines(world, ["read"])["tool not called: write"] == (True, None)
    assert lines(world, ["write", "read", "write"])["tool not called: write"] == (False, "called 2 time(s)")


def test_order_allows_calls_between_and_fails_out_of_order() -> None:
    world = World(tools=ToolExpect(order=("read", "edit", "shell")))
    name = "tools in order: read → edit → shell"
    assert lines(world, ["read", "skill", "edit", "read", "shell"])[name] == (True, None)
    ok, msg = lines(world, ["read", "shell", "edit"])[name]
    assert not ok and msg.startswith("no shell after read → edit;"), msg
    ok, msg = lines(world, [])[name]
    assert not ok and msg == "no read after the start; no tool was called"
    assert in_order(["a", "b", "a"], ["b", "a"]) == 2 and in_order(["b"], ["a", "b"]) == 0


def test_skill_lists_a_neighbour_that_steals_the_trigger_fails() -> None:
    world = World(skills_loaded=("greet",), skills_not_loaded=("iso-dates",))
    got = lines(world, [], {"greet": 1})
    assert got == {"skill loaded: greet": (True, None), "skill not loaded: iso-dates": (True, None)}
    got = lines(world, [], {"iso-dates": 2})
    assert got["skill not loaded: iso-dates"] == (False, "loaded on turn 2")
    assert got["skill loaded: greet"] == (False, "not loaded (loaded: iso-dates)")


@pytest.mark.parametrize(
    ("cli", "own", "shared"),
    [
        ("claude", ["Read", "Write", "Edit", "Bash", "Skill", "Grep", "mcp__lint__check"],
         ["read", "write", "edit", "shell", "skill", "Grep", "mcp:lint/check"]),
        ("pi", ["read", "write", "edit", "bash", "grep"], ["read", "write", "edit", "shell", "grep"]),
        ("opencode", ["read", "write", "edit", "bash", "skill", "glob", "lint_check"],
         ["read", "write", "edit", "shell", "skill", "glob", "mcp:lint/check"]),
    ],
)  # fmt: skip
def test_each_cli_maps_its_own_names_into_the_shared_vocabulary(cli: str, own: list[str], shared: list[str]) -> None:
    d = driver(cli)
    assert [shared_tool(d, n, ["lint"]) for n in own] == shared
    # Without the server declared, an MCP-looking name stays the CLI's own.
    assert shared_tool(d, "lint_check", []) == "lint_check"


class Bare:
    """A driver of another branch that sets none of the optional attributes."""

    name = "bare"


def test_a_driver_without_the_optional_attributes_keeps_the_defaults() -> None:
    assert shared_tool(Bare(), "Bash") == "shell" and shared_tool(Bare(), "apply_patch") == "apply_patch"
    assert shared_tool(Bare(), "mcp__files__read", ["files"]) == "mcp:files/read"
    assert not takes_mcp(Bare()) and not resumes(Bare())
    assert DEFAULT_TOOL_NAMES["bash"] == "shell"


def test_a_record_gives_the_shared_names_and_an_old_record_the_default_ones() -> None:
    record = {"transcript": {"toolCalls": [{"name": "Bash", "tool": "shell"}, {"name": "Read"}, {"name": "x"}]}}
    assert shared_calls(record) == ["shell", "read", "x"]
    assert shared_calls({}) == []
