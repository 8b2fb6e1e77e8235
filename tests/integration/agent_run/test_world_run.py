"""`skill-be run` on agent scenarios that use the agent's world (the drivers' table replaced by the fake
agent, tests/integration/agent_run/fake_agent.py, on this machine): expect.tools and the skill lists
are lines of the report, each passing and failing as it should."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from tests.integration.agent_run.fake_agent import write
from tests.integration.agent_run.test_agent_run_command import agent_project, run


def lines_at(summary: dict[str, Any], index: int) -> dict[str, tuple[int, int]]:
    sc = summary["skills"]["greet"]["scenarios"][index]
    model = next(iter(sc["models"].values()))
    return {x["line"]: (x["baseline"], x["withSkill"]) for x in model["lines"]}


def test_expect_tools_and_the_skill_lists_are_lines(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process", reps=1)
    write(root / "skills/helper/SKILL.md", "---\nname: helper\ndescription: Helps.\n---\n# Helper\n")
    doc = yaml.safe_load((root / "skill-be.yaml").read_text())
    (root / "skill-be.yaml").write_text(yaml.safe_dump({**doc, "neighbours": ["./skills/helper"]}))
    evals = json.loads((root / "evals/greet.json").read_text())
    sc = evals["scenarios"][0]
    for key in ("criteria", "checks", "checkFiles"):
        sc.pop(key)
    # The fake loads every offered skill (the neighbour helper in both arms: it steals the trigger),
    # writes answer.txt, then runs `cat greeting.txt` with its bash tool.
    sc["expect"] = {
        "skillLoaded": True,
        "tools": {"called": ["shell", "write"], "notCalled": ["edit", "read"], "order": ["write", "shell"]},
        "skillsLoaded": ["greet"],
        "skillsNotLoaded": ["helper"],
    }
    quiet = {**json.loads(json.dumps(sc)), "id": "no-load"}  # the control: nothing loaded, nothing written
    quiet["prompt"] = json.dumps({"load": False, "steps": [{"sh": "cat greeting.txt"}], "final": "read it"})
    quiet["expect"] = {"tools": {"order": ["shell", "write"]}, "skillsNotLoaded": ["helper"]}
    evals["scenarios"] = [sc, quiet]
    (root / "evals/greet.json").write_text(json.dumps(evals))
    code, printed, summary, run_dir = run(root)
    assert lines_at(summary, 0) == {
        "[test] skill loaded": (0, 100),
        "[test] tool called: shell": (100, 100),
        "[test] tool called: write": (100, 100),
        "[test] tool not called: edit": (100, 100),
        "[test] tool not called: read": (0, 0),  # the fake loads helper in both arms: a read of SKILL.md
        "[test] tools in order: write → shell": (100, 100),
        "[test] skill loaded: greet": (0, 100),
        "[test] skill not loaded: helper": (0, 0),
    }, printed
    assert lines_at(summary, 1) == {
        "[test] tools in order: shell → write": (0, 0),
        "[test] skill not loaded: helper": (100, 100),
    }, printed
    report = (run_dir / "greet.md").read_text()
    assert "tool not called: read" in report
    transcript = json.loads((run_dir / "greet/greet-file/fake-model/rep-1-with-skill.transcript.json").read_text())
    assert [c["tool"] for c in transcript["toolCalls"]] == ["read", "read", "write", "shell"]
    assert code == 1, printed  # critical lines fail: NOT READY


def test_mcp_on_a_cli_that_cannot_take_it_is_one_line_before_any_call(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process", reps=1)
    doc = yaml.safe_load((root / "skill-be.yaml").read_text())
    doc["model"] = {**doc["model"], "adapter": "pi-cli", "provider": "anthropic"}  # a valid pi entry
    (root / "skill-be.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    evals = json.loads((root / "evals/greet.json").read_text())
    evals["scenarios"][0]["mcp"] = {"facts": {"command": "python3", "args": ["/opt/mcp/server.py"]}}
    (root / "evals/greet.json").write_text(json.dumps(evals))
    code, printed, _, _ = run(root)
    assert code == 2, printed
    (line,) = [x for x in printed.splitlines() if "MCP" in x]
    assert line.startswith("evals/greet.json:1:") and 'scenarios[0] (id "greet-file").mcp: model "fake-model"' in line
    assert (
        "uses pi-cli, which cannot take MCP servers; use claude-cli or opencode-cli or codex-cli or copilot-cli for this scenario"
        in line
    )
    assert "fake-model rep" not in printed  # no agent ran
    # The control: the same scenario on a CLI that takes MCP servers goes past this check.
    doc["model"]["adapter"] = "claude-cli"
    del doc["model"]["provider"]  # claude-cli has no provider
    (root / "skill-be.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    code, printed, _, _ = run(root)
    assert "cannot take MCP servers" not in printed and "fake-model rep 1/1" in printed, printed


def test_a_follow_up_changes_the_workspace_and_the_checks_see_the_end_state(tmp_path: Path, model_server: str) -> None:
    root = agent_project(tmp_path, model_server, "process", reps=1)
    evals = json.loads((root / "evals/greet.json").read_text())
    sc = evals["scenarios"][0]
    for key in ("criteria", "checkFiles", "expect"):
        sc.pop(key)
    sc["prompt"] = json.dumps({"steps": [{"write": ["first.txt", "one\n"]}], "final": "wrote first"})
    sc["followUps"] = [json.dumps({"steps": [{"sh": "cat first.txt > second.txt"}], "final": "wrote second"})]
    sc["checks"] = ["grep -qx one second.txt"]
    sc["expect"] = {"tools": {"order": ["write", "shell"]}}
    control = {**json.loads(json.dumps(sc)), "id": "no-follow-up"}
    control.pop("followUps")
    evals["scenarios"] = [sc, control]
    (root / "evals/greet.json").write_text(json.dumps(evals))
    code, printed, summary, run_dir = run(root)
    assert lines_at(summary, 0) == {
        "[test] check: check 1: grep -qx one second.txt": (100, 100),
        "[test] tools in order: write → shell": (100, 100),
    }, printed
    assert lines_at(summary, 1) == {
        "[test] check: check 1: grep -qx one second.txt": (0, 0),
        "[test] tools in order: write → shell": (0, 0),
    }, printed
    transcript = json.loads((run_dir / "greet/greet-file/fake-model/rep-1-with-skill.transcript.json").read_text())
    assert transcript["finalMessage"] == "wrote second" and [c["tool"] for c in transcript["toolCalls"]] == [
        "write",
        "shell",
    ]
    assert code == 1, printed


FOLLOW_UP_RUNNER = """
import sys
from skill_be import cli
from skill_be.agents import world_support
from skill_be.wiring import agent_parts
from tests.integration.agent_run.fake_agent import FakeDriver
agent_parts.driver = lambda name, **options: FakeDriver()
class NoResume:
    name = "no-resume"
world_support.driver = lambda name, **options: NoResume()  # a CLI without resume (the default)
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_follow_up_on_a_cli_without_resume_is_one_line_before_any_call(tmp_path: Path, model_server: str) -> None:
    import os
    import subprocess
    import sys

    from tests.integration.agent_run.test_agent_run_command import REPO

    root = agent_project(tmp_path, model_server, "process", reps=1)
    evals = json.loads((root / "evals/greet.json").read_text())
    evals["scenarios"][0]["followUps"] = ["And again."]
    (root / "evals/greet.json").write_text(json.dumps(evals))
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-fake", "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    argv = [sys.executable, "-c", FOLLOW_UP_RUNNER, "run", "--config", str(root / "skill-be.yaml")]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "followUps" in x]
    assert line.startswith("evals/greet.json:1:") and 'scenarios[0] (id "greet-file").followUps: model' in line
    assert "which cannot send follow-ups in the same session (no resume)" in line
    assert "fake-model rep" not in done.stderr + done.stdout
