"""Agent scenarios: bad input is one line with its place and exit 2, before any model call."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from tests.e2e.run.helpers import run, write

CLIS = "/work/main/.ci/cache/clis/bin"
MODEL = """
import sys
open("model-called.txt", "a").write("x")
print("answer")
"""


def agent_project(root: Path, scenario: dict[str, object], model: dict[str, object] | None = None) -> Path:
    write(root / "skills/greet/SKILL.md", "---\nname: greet\ndescription: Greets.\n---\n# Greet\n")
    write(root / "evals/ws/a.txt", "a\n")
    base = {"id": "act", "mode": "agent", "prompt": "Do it.", "criteria": ["It is done"]}
    write(root / "evals/greet.json", json.dumps({"scenarios": [{**base, **scenario}]}, indent=2))
    write(root / "model.py", MODEL)
    doc = {
        "skills": "./skills",
        "evals": "./evals",
        "model": model or {"adapter": "claude-cli", "id": "m", "baseUrl": "http://127.0.0.1:9"},
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} model.py"},
        "reps": 1,
        "gradings": 1,
        "checks": {"typecheck": False},
    }
    write(root / "skill-be.yaml", yaml.safe_dump(doc, sort_keys=False))
    return root


ENV = {"PATH": f"{CLIS}:{os.environ['PATH']}", "ANTHROPIC_API_KEY": "sk-test-key-123456"}


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ({"workspace": {"from": ["../../outside"]}}, '"../../outside" is outside the project'),
        (
            {"workspace": {"from": ["nope"]}},
            'scenarios[0].workspace.from[0]: "nope" does not exist beside the eval file',
        ),
        ({"workspace": {"from": ["/etc"]}}, '"/etc" is an absolute path'),
        ({"mode": "one-shot", "workspace": {"git": True}}, '"workspace" is a key of agent scenarios; add mode: agent'),
        ({"output": {"result": "the answer"}}, 'in agent mode needs "file"'),
        ({"agent": {"maxTurns": 0}}, "agent.maxTurns: must be a positive integer, not 0"),
    ],
)
def test_bad_agent_keys_are_one_line_and_exit_2(tmp_path: Path, scenario: dict[str, object], expected: str) -> None:
    (tmp_path / "outside").mkdir()
    root = agent_project(tmp_path / "project", scenario)
    result = run(root, "run", env=ENV)
    line = one_line(result.stderr)
    assert result.code == 2 and expected in line, line
    assert not (root / "model-called.txt").exists()


def test_a_workspace_outside_the_project_names_its_place(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    root = agent_project(tmp_path / "project", {"workspace": {"from": ["../../outside"]}})
    line = one_line(run(root, "run", env=ENV).stderr)
    assert line.startswith("evals/greet.json:") and 'workspace.from[0]: "../../outside" is outside the project' in line


@pytest.mark.parametrize("adapter", ["command", "anthropic", "openai", "gemini"])
def test_an_adapter_that_cannot_act_as_an_agent_is_refused(tmp_path: Path, adapter: str) -> None:
    model = {"adapter": adapter, "id": "m", "run": f"{sys.executable} model.py"} if adapter == "command" else {
        "adapter": adapter, "id": "m", "baseUrl": "http://127.0.0.1:9"}  # fmt: skip
    root = agent_project(tmp_path, {}, model)
    result = run(root, "run", env={**ENV, "OPENAI_API_KEY": "sk-test-key-123456"})
    line = one_line(result.stderr)
    assert result.code == 2, line
    assert f"uses adapter {adapter}, which cannot act as an agent; use claude-cli, pi-cli, opencode-cli" in line
    assert line.startswith("evals/greet.json:")
    assert not (root / "model-called.txt").exists()


def test_docker_missing_is_one_line(tmp_path: Path) -> None:
    root = agent_project(tmp_path, {"workspace": {"from": ["ws"]}})
    result = run(root, "run", env={**ENV, "DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    line = one_line(result.stderr)
    assert result.code == 2 and "Docker is not reachable" in line and "agent.sandbox: process" in line


@pytest.mark.parametrize("sandbox", ["process", "docker"])
def test_a_check_command_that_is_not_found_is_refused(tmp_path: Path, sandbox: str) -> None:
    checks = ["test -f a.txt", "no-such-checker --all"]
    root = agent_project(tmp_path, {"agent": {"sandbox": sandbox}, "checks": checks})
    result = run(root, "run", env=ENV, timeout=180)
    lines = [x for x in result.stderr.splitlines() if x.strip() and not x.startswith("agent.sandbox: process")]
    assert result.code == 2 and len(lines) == 1, result.stderr
    assert (
        lines[0].startswith("evals/greet.json:")
        and "scenarios[0].checks[1]: 'no-such-checker' is not a command" in lines[0]
    )
    assert not (root / "model-called.txt").exists()
