"""`skill-be run` as a user runs it, on agent scenarios through the real Codex CLI (`codex-cli`, 0.169.0)
and Gemini CLI (`gemini-cli`, 0.61.0) in the process box, against the scripted agent model (its
Responses API for Codex, the Gemini API for Gemini) on loopback: the skill offered
and loaded in the with-skill arm only, checks that pass and fail on what the agent wrote and ran,
and a looping model ended at maxTurns as an error of each output (the control: the same scenario
with a model that finishes)."""

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
CLIS = "/work/main/.ci/cache/clis/bin"
sys.path.insert(0, str(REPO / "tests" / "support"))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


# Each CLI: its base URL's path on the scripted server, and the name its requests are logged under.
CLI = {"codex-cli": ("/v1", "codex"), "gemini-cli": ("", "gemini")}


def project(root: Path, server: Any, cli: str, max_turns: int = 6) -> Path:
    write(root / "skills/greet/SKILL.md",
          "---\nname: greet\ndescription: Greets people in files. Use when asked to greet.\n---\nWrite hello.\n")  # fmt: skip
    write(root / "evals/ws/README.md", "# team\n")
    scenario = {
        "id": "greet-team", "mode": "agent", "prompt": "Greet the team in a file.",
        "workspace": {"from": ["ws"], "git": True},
        "agent": {"maxTurns": max_turns, "timeoutSeconds": 120, "sandbox": "process"},
        "checks": ["grep -q hello out.txt", "test -f ran.txt", "test -f never.txt"],
        "criteria": ["The agent wrote out.txt"], "expect": {"skillLoaded": True},
    }  # fmt: skip
    write(root / "evals/greet.json", json.dumps({"scenarios": [scenario]}))
    write(root / "grader.py", KEYWORD_GRADER)
    model = {"adapter": cli, "id": "agent-mock", "baseUrl": server.base_url + CLI[cli][0], "apiKeyEnv": "TEST_KEY"}
    doc = {"skills": "./skills", "evals": "./evals", "model": model,
           "grader": {"adapter": "command", "id": "judge", "run": f"{sys.executable} grader.py"},
           "reps": 1, "gradings": 1, "checks": {"typecheck": False}}  # fmt: skip
    write(root / "skill-be.yaml", yaml.safe_dump(doc, sort_keys=False))
    return root


def run(root: Path) -> tuple[int, str, dict[str, Any], Path]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PATH=f"{CLIS}:{env['PATH']}", TEST_KEY="sk-agent-e2e-key", NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "skill_be", "run"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    run_dir = sorted((root / ".skill-be" / "results").iterdir())[-1]
    return done.returncode, done.stdout + done.stderr, json.loads((run_dir / "summary.json").read_text()), run_dir


def lines(summary: dict[str, Any]) -> dict[str, tuple[int, int]]:
    found = summary["skills"]["greet"]["scenarios"][0]["models"]["agent-mock"]["lines"]
    return {x["line"]: (x["baseline"], x["withSkill"]) for x in found}


@pytest.mark.parametrize("cli", sorted(CLI))
def test_skill_be_runs_the_cli_as_an_agent_both_arms_and_its_checks(tmp_path: Path, server: Any, cli: str) -> None:
    server.reset()
    server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello team"},
                 command="echo ran > ran.txt", final="I wrote out.txt")  # fmt: skip
    _, printed, summary, run_dir = run(project(tmp_path, server, cli))
    got = lines(summary)
    assert got["[test] skill loaded"] == (0, 100), printed
    assert got["[test] check: check 1: grep -q hello out.txt"] == (100, 100)  # a file written comes back
    assert got["[test] check: check 2: test -f ran.txt"] == (100, 100)  # a command run comes back
    assert got["[test] check: check 3: test -f never.txt"] == (0, 0)  # a check that must fail fails
    folder = run_dir / "greet" / "greet-team" / "agent-mock"
    with_skill = json.loads((folder / "rep-1-with-skill.transcript.json").read_text())
    baseline = json.loads((folder / "rep-1-baseline.transcript.json").read_text())
    assert with_skill["skillsOffered"] == ["greet"] and baseline["skillsOffered"] == []
    assert "+hello team" in (folder / "rep-1-with-skill.diff").read_text()
    assert ".agents" not in (folder / "rep-1-with-skill.diff").read_text()  # the install is not the agent's work
    assert "sk-agent-e2e-key" not in (folder / "rep-1-with-skill.transcript.json").read_text()


@pytest.mark.parametrize("cli", sorted(CLI))
def test_a_looping_model_ends_at_max_turns_as_an_error_of_each_output(tmp_path: Path, server: Any, cli: str) -> None:
    server.reset()
    server.agent(skill="greet", forever=True)
    code, printed, _, run_dir = run(project(tmp_path, server, cli, max_turns=2))
    assert code == 3, printed  # every output errored: ERROR, could not measure
    folder = run_dir / "greet" / "greet-team" / "agent-mock"
    for arm in ("baseline", "with-skill"):
        record = json.loads((folder / f"rep-1-{arm}.transcript.json").read_text())
        assert "turn limit reached (maxTurns 2: the agent asked for model call 3)" in json.dumps(record), arm
    assert len([e for e in server.agent_log() if e["cli"] == CLI[cli][1]]) == 4  # two answered calls per arm
