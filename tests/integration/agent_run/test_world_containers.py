"""Two things that run in the agent container through each pinned CLI. skillgrade's superlint example converted by `skill-be convert --from skillgrade` and run offline
through each pinned agent CLI in its container: the converted `environment.files` put the tool at
/usr/local/bin/superlint (+x) in the scenario's image (built on skill-be's), a scripted model follows
the task's workflow (check, fix --target app.js, verify) with the CLI's own shell tool, and the
converted bash grader's skillgrade JSON gives its lines. The control: the same run in skill-be's
image, where the tool is missing, and the grader's lines fail. And an MCP server placed in the image
and started inside the container by Claude Code, opencode, Codex CLI and Copilot CLI (pi cannot take
MCP servers)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from tests.e2e.test_convert import CONFIG, PEERS, skill_be
from tests.integration.agent_run.conftest import IMAGE
from tests.integration.agent_run.test_agent_cli_containers import KEY, SUPPORT, box, endpoint, server, tls

from skill_be import containers
from skill_be.agents.boxes.docker import IMAGE_PATH, DockerBox
from skill_be.agents.checks import check_lines
from skill_be.agents.drivers import driver
from skill_be.agents.drivers.base import AgentLimits, AgentSetup, McpServerSpec, shared_tool

__all__ = ["box", "server", "tls"]  # the module's fixtures, shared with the other container tests
LABEL = {"skill-be.helper": "world"}
WORKFLOW = "superlint check; superlint fix --target app.js; superlint verify"
# The CLIs whose drivers take follow-ups (followUps) and a converted world: every pinned CLI.
WORLD_CLIS = ("claude", "pi", "opencode", "codex", "copilot")  # the CLIs that resume (follow-ups)
SUPERLINT_CLIS = (*WORLD_CLIS, "gemini")  # every pinned CLI: a tool on the PATH and a grader
MCP_CLIS = ("claude", "opencode", "codex", "copilot")  # pi cannot take MCP servers
WRITE = {"codex": "shell"}  # the first turn's write: codex writes through its shell


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("superlint")
    shutil.copytree(PEERS / "skillgrade-superlint", root / "skills" / "superlint")
    (root / "skill-be.yaml").write_text(CONFIG)
    done = skill_be(root, "convert", "--from", "skillgrade", "skills/superlint/eval.yaml")
    assert done.returncode == 0, done.stderr
    (sc,) = json.loads((root / "evals/superlint.json").read_text())["scenarios"]
    return {"scenario": sc, "evals": root / "evals"}


@pytest.fixture(scope="module")
def cleanup(client: Any) -> Iterator[None]:
    """Set up before the box, so torn down after it (its spare containers use the image)."""
    yield
    for found in client.images.list(filters={"label": "skill-be.helper=" + LABEL["skill-be.helper"]}):
        client.images.remove(found.id, force=True)


@pytest.fixture(scope="module")
def image(client: Any, converted: dict[str, Any]) -> str:
    env = converted["scenario"]["environment"]
    files = [
        containers.PlacedFile(f["dest"], {"": (converted["evals"] / f["src"]).read_bytes()}, f.get("mode"))
        for f in env["files"]
    ]
    return containers.cached_image(client, IMAGE, env.get("setup") or [], lambda _: None, files=files, labels=LABEL)


def run_and_grade(box: Any, server: Any, cli: str, sc: dict[str, Any]) -> list[tuple[str, bool, str | None]]:
    server.reset()
    server.agent(skill="superlint", command=WORKFLOW, final="Fixed app.js with superlint.")
    setup = AgentSetup(sc["prompt"], endpoint(server.base_url, cli, KEY), (), limits=AgentLimits(8, 120))
    files = {k: v.encode() for k, v in sc["workspace"]["files"].items()}
    run = box.run_agent(driver(cli, path=IMAGE_PATH), setup, files)
    assert run.error is None and run.exit == "0", (run.stderr[-2000:], run.stdout[-2000:])
    (check,) = sc["checks"]
    rows, error = box.run_checks(run.workspace, {}, [(check["name"], check["run"])], 30)
    assert error is None
    return check_lines(rows)


@pytest.mark.parametrize("cli", SUPERLINT_CLIS)
def test_superlint_converted_runs_through_each_cli_and_fails_without_its_tool(
    cleanup: None, box: DockerBox, server: Any, image: str, converted: dict[str, Any], cli: str
) -> None:
    sc = converted["scenario"]
    lines = run_and_grade(box.in_image(image), server, cli, sc)
    assert lines == [("check: grader › verified", True, None), ("check: grader › code-fixed", True, None)]
    control = run_and_grade(box, server, cli, sc)  # skill-be's image: no superlint on the PATH
    assert control == [("check: grader › verified", False, None), ("check: grader › code-fixed", False, None)]


@pytest.fixture(scope="module")
def mcp_image(client: Any) -> str:
    """skill-be's image with the test's stdio MCP server placed, as `environment.files` places it."""
    server = (SUPPORT / "mcp_server.py").read_bytes()
    files = [containers.PlacedFile("/opt/skill-be-test/mcp_server.py", {"": server}, "755")]
    return containers.cached_image(client, IMAGE, [], lambda _: None, files=files, labels=LABEL)


@pytest.mark.parametrize("cli", MCP_CLIS)
def test_an_mcp_server_runs_inside_the_agent_container(
    cleanup: None, box: DockerBox, server: Any, mcp_image: str, cli: str
) -> None:
    server.reset()
    server.agent(mcp={"tool": "lookup", "input": {"key": "colour"}}, final="DONE")
    facts = McpServerSpec("facts", "python3", ("/opt/skill-be-test/mcp_server.py", "/work/ws/calls.txt"), {"FACT": "x"})
    setup = AgentSetup(
        "Look colour up.", endpoint(server.base_url, cli, KEY), (), limits=AgentLimits(6, 120), mcp=(facts,)
    )
    run = box.in_image(mcp_image).run_agent(driver(cli, path=IMAGE_PATH), setup, {"README.md": b"x\n"})
    assert run.error is None and run.exit == "0", (run.stderr[-2000:], run.stdout[-2000:])
    t = driver(cli).parse(run.stdout, setup)
    assert [shared_tool(driver(cli), c.name, ["facts"]) for c in t.tool_calls] == ["mcp:facts/lookup"]
    assert "MCP-ANSWER:colour:x" in (t.tool_calls[0].result or "")
    assert run.workspace is not None and run.workspace["calls.txt"] == b"colour\n"  # the server ran in the box


@pytest.mark.parametrize("cli", WORLD_CLIS)
def test_a_follow_up_continues_the_session_and_the_checks_see_the_end_state(
    cleanup: None, box: DockerBox, server: Any, cli: str
) -> None:
    server.reset()
    server.agent(write={"path": "first.txt", "content": "one\n"}, final="DONE ONE",
                 followUp={"marker": "AGAIN", "command": "echo two > second.txt", "final": "DONE TWO"})  # fmt: skip
    checks = [("both", "test -f first.txt && grep -qx two second.txt")]
    runs = {}
    for arm, follow_ups in (("follow-up", ("AGAIN: now write second.txt too.",)), ("control", ())):
        setup = AgentSetup("Write first.txt.", endpoint(server.base_url, cli, KEY), (), limits=AgentLimits(8, 180),
                           follow_ups=follow_ups)  # fmt: skip
        run = box.run_agent(driver(cli, path=IMAGE_PATH), setup, {"README.md": b"x\n"})
        assert run.error is None and run.exit == "0", (run.stderr[-2000:], run.stdout[-2000:])
        rows, error = box.run_checks(run.workspace or {}, {}, checks, 30)
        assert error is None
        runs[arm] = (driver(cli).parse(run.stdout, setup), rows[0].exit)
        if follow_ups:  # the follow-up reached the model with the first turn's conversation before it
            bodies = [r["body"] for r in server.model_calls() if "AGAIN: now write" in r["body"]]
            assert bodies and all("Write first.txt." in b and "first.txt" in b for b in bodies)
    t, exit_ = runs["follow-up"]
    assert exit_ == "0" and t.error is None and t.final_message == "DONE TWO", t
    # One transcript: the first turn's write, then the follow-up's shell call, in the same session
    # (the model saw the first turn's messages: its script answered the follow-up by its marker).
    assert [shared_tool(driver(cli), c.name) for c in t.tool_calls] == [WRITE.get(cli, "write"), "shell"]
    assert t.turns >= 4
    t, exit_ = runs["control"]
    assert exit_ != "0" and t.final_message == "DONE ONE"  # the control: no follow-up, no second.txt
