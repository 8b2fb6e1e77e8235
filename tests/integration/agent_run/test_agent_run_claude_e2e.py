"""`skill-be run` as a user runs it, on an agent scenario, with the real Claude Code (and GitHub
Copilot CLI) in its container (skill-be's image) against the scripted tool-use model on loopback: the skill is offered and loaded
with it, the files the agent wrote are checked, and the report has the agent's numbers. This machine's
PATH has no agent CLI: the container's is the one that runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.e2e.run.helpers import KEYWORD_GRADER
from tests.integration.agent_run.fake_agent import write

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "support"))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


# The model entry of each CLI, pointed at the scripted model (Copilot speaks chat completions to it).
MODELS = {
    "claude-cli": lambda url: {"adapter": "claude-cli", "id": "agent-mock", "baseUrl": url, "apiKeyEnv": "TEST_KEY"},
    "copilot-cli": lambda url: {"adapter": "copilot-cli", "id": "agent-mock", "baseUrl": url + "/v1",
                                "apiKeyEnv": "TEST_KEY"},
}  # fmt: skip


@pytest.mark.parametrize("cli", sorted(MODELS))
def test_skill_be_runs_the_cli_as_an_agent_in_containers(tmp_path: Path, client: Any, server: Any, cli: str) -> None:
    server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello team"},
                 command="echo ran > ran.txt", final="I wrote out.txt")  # fmt: skip
    root = tmp_path
    write(
        root / "skills/greet/SKILL.md",
        "---\nname: greet\ndescription: Greets people in files. Use when asked to greet.\n---\nWrite hello.\n",
    )
    write(root / "evals/ws/README.md", "# team\n")
    scenario = {
        "id": "greet-team", "mode": "agent", "prompt": "Greet the team in a file.",
        "workspace": {"from": ["ws"], "git": True}, "agent": {"maxTurns": 8, "timeoutSeconds": 120},
        "checks": ["grep -q hello out.txt", "test -f ran.txt"], "criteria": ["The agent wrote out.txt"],
        "expect": {"skillLoaded": True},
    }  # fmt: skip
    write(root / "evals/greet.json", json.dumps({"scenarios": [scenario]}))
    write(root / "grader.py", KEYWORD_GRADER)
    doc = {
        "skills": "./skills", "evals": "./evals",
        "model": MODELS[cli](server.base_url),
        "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
        "reps": 1, "gradings": 1, "checks": {"typecheck": False},
    }  # fmt: skip
    write(root / "skill-be.yaml", yaml.safe_dump(doc, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    # No agent CLI on this machine's PATH: every scenario runs in the container, so none is needed here.
    path = ":".join(p for p in env["PATH"].split(":") if "/.ci/cache/clis" not in p)
    env.update(PATH=path, TEST_KEY="sk-e2e-agent-key", NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "skill_be", "run", "--html"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed
    run_dir = sorted((root / ".skill-be" / "results").iterdir())[-1]
    summary = json.loads((run_dir / "summary.json").read_text())
    lines = summary["skills"]["greet"]["scenarios"][0]["models"]["agent-mock"]["lines"]
    got = {x["line"]: (x["baseline"], x["withSkill"]) for x in lines}
    assert got["[test] skill loaded"] == (0, 100), printed
    assert got["[test] check: check 1: grep -q hello out.txt"] == (100, 100)
    assert got["The agent wrote out.txt"] == (100, 100)
    folder = run_dir / "greet" / "greet-team" / "agent-mock"
    with_skill = json.loads((folder / "rep-1-with-skill.transcript.json").read_text())
    baseline = json.loads((folder / "rep-1-baseline.transcript.json").read_text())
    assert "greet" in with_skill["skillsOffered"] and "greet" not in baseline["skillsOffered"]
    assert "+hello team" in (folder / "rep-1-baseline.diff").read_text()
    assert "sk-e2e-agent-key" not in (folder / "rep-1-with-skill.transcript.json").read_text()
    assert "| Agent | Skill loaded |" in (run_dir / "greet.md").read_text()
