"""An agent scenario in the action's image, run the way the GitHub runner runs a docker action (the
Docker socket mounted, the workspace a bind mount): every agent run and every checks run is a sibling
container on the host's engine, the workspace copied in and out through the archive API, the agent's
only way out skill-be's egress proxy to the scripted tool-use model on this machine's loopback."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.e2e.action.test_action_container import TOKEN, Runner, docker
from tests.support.fake_github import FakeGitHub
from tests.support.images import built_image

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "support"))
import agent_model_server as ams  # noqa: E402  (the folder is put on sys.path just above)

pytestmark = pytest.mark.timeout(1800)
KEY = "sk-action-agent-key-0123"


@pytest.fixture(scope="module")
def image() -> str:
    # SKILL_BE_TEST_IMAGE: an image built from this checkout under another tag (a helper's own build).
    return os.environ.get("SKILL_BE_TEST_IMAGE") or built_image()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def internal() -> Iterator[tuple[str, str]]:
    """An internal network (no route out) and its gateway, where the fake API listens."""
    name = f"skill-be-agent-action-{secrets.token_hex(4)}"
    made = docker("network", "create", "--internal", name)
    assert made.returncode == 0, made.stderr
    try:
        gateway = docker("network", "inspect", name, "-f", "{{range .IPAM.Config}}{{.Gateway}}{{end}}").stdout.strip()
        yield name, gateway
    finally:
        docker("network", "rm", name)


class AgentRunner(Runner):
    """The runner's docker run line (Runner's), with the model's key in the step's environment."""

    def run(self, image: str, net: str, api_url: str, name: str, **inputs: str) -> subprocess.CompletedProcess[str]:
        original = subprocess.run

        def with_key(argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
            at = argv.index("--entrypoint")
            return original([*argv[:at], "-e", f"TEST_KEY={KEY}", *argv[at:]], **kw)

        subprocess.run = with_key  # type: ignore[assignment]
        try:
            return super().run(image, net, api_url, name, **inputs)
        finally:
            subprocess.run = original


def agent_project(root: Path, base_url: str) -> None:
    (root / "skills/greet").mkdir(parents=True)
    (root / "skills/greet/SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets people in files. Use when asked to greet.\n---\nWrite hello.\n"
    )
    (root / "evals/ws").mkdir(parents=True)
    (root / "evals/ws/README.md").write_text("# team\n")
    scenario = {
        "id": "greet-team", "mode": "agent", "critical": True, "prompt": "Greet the team in a file.",
        "workspace": {"from": ["ws"], "git": True}, "agent": {"maxTurns": 8, "timeoutSeconds": 120},
        "checks": ["grep -q hello out.txt"], "expect": {"skillLoaded": True},
    }  # fmt: skip
    (root / "evals/greet.json").write_text(json.dumps({"scenarios": [scenario]}))
    doc = {
        "skills": "./skills", "evals": "./evals",
        "model": {"adapter": "claude-cli", "id": "agent-mock", "baseUrl": base_url, "apiKeyEnv": "TEST_KEY"},
        "grader": {"adapter": "claude-cli", "id": "judge", "baseUrl": base_url, "apiKeyEnv": "TEST_KEY"},
        "reps": 1, "gradings": 1, "checks": {"typecheck": False},
    }  # fmt: skip
    (root / "skill-be.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


def test_an_agent_scenario_runs_in_sibling_containers_from_the_action(
    image: str, internal: tuple[str, str], server: Any, tmp_path: Path
) -> None:
    server.agent(skill="greet", load="offered", write={"path": "out.txt", "content": "hello team"},
                 command="echo ran > ran.txt", final="I wrote out.txt")  # fmt: skip
    runner = AgentRunner(tmp_path)
    agent_project(runner.workspace, server.base_url)
    name = f"skill-be-action-agent-{secrets.token_hex(4)}"
    with FakeGitHub(token=TOKEN, host=internal[1]) as gh:
        done = runner.run(image, internal[0], gh.url, name, command="run")
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert KEY not in log and "Result: pass" in done.stdout
    run_dir = sorted((runner.workspace / ".skill-be" / "results").iterdir())[-1]
    summary = json.loads((run_dir / "summary.json").read_text())
    lines = summary["skills"]["greet"]["scenarios"][0]["models"]["agent-mock"]["lines"]
    got = {x["line"]: (x["baseline"], x["withSkill"]) for x in lines}
    assert got == {"[test] check: check 1: grep -q hello out.txt": (100, 100), "[test] skill loaded": (0, 100)}, log
    left = docker("ps", "-aq", "--filter", "label=skill-be").stdout.split()
    assert left == [], "the agent, checks or egress containers were left behind"
