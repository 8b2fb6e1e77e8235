"""`skill-be run` on an agent scenario with an `environment` (the drivers' table replaced by the fake
agent, tests/integration/agent_run/fake_agent.py, in the docker box): the image is skill-be's with the
files placed and the setup run (a pip install from the registry this machine reaches), built once and
reused by the next run (counted: the builds skill-be starts, and the images that carry this test's
label), rebuilt when the setup changes; the agent and its checks both run in it, with every protection
kept (not root, read-only root, no network); a setup that fails is one line, exit 2, before any run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent_run.fake_agent import write
from tests.integration.agent_run.test_agent_run_command import REPO, agent_project

LABEL = "skill-be.helper=world"  # on every image this test has skill-be build
RUNNER = """
import sys
from skill_be import cli, containers
from skill_be.agents import environment
from skill_be.wiring import agent_parts
from tests.integration.agent_run.fake_agent import FakeDriver
agent_parts.driver = lambda name, **options: FakeDriver()
environment.IMAGE_LABELS = {**environment.IMAGE_LABELS, "skill-be.helper": "world"}
built = containers.build
def counted(*args, **kwargs):
    with open(sys.argv[1], "a") as f:
        f.write("build\\n")
    return built(*args, **kwargs)
containers.build = counted
sys.exit(cli.main(sys.argv[2:]))
"""
NETWORK = "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/', timeout=5)"
STEPS = [
    {"sh": "hello-tool > tool.txt"},
    # The fake's PATH has the system python3 first; the CLIs' and the checks' PATH has skill-be's, which pip is.
    {"sh": "/opt/skill-be/bin/python3 -c 'import six; print(six.__version__)' > six.txt"},
    {"sh": "touch /usr/local/bin/planted 2>/dev/null && echo writable > rw.txt || echo read-only > rw.txt"},
    {"sh": f'python3 -c "{NETWORK}" 2>/dev/null && echo online > net.txt || echo offline > net.txt'},
    {"sh": "id -u > uid.txt"},
]
CHECKS = [
    "grep -qx hello-from-tool tool.txt",
    "grep -qx 1.17.0 six.txt",
    {"name": "six in the checks", "run": "python3 -c 'import six'"},
    "grep -qx read-only rw.txt",
    "grep -qx offline net.txt",
    "grep -qx 65534 uid.txt",
]
SETUP = "PIP_CERT=/etc/skill-be-test/ca.pem python3 -m pip install --no-cache-dir --no-deps six==1.17.0"


@pytest.fixture
def own_images(client: Any) -> Iterator[Any]:
    yield client
    for image in client.images.list(filters={"label": LABEL}):
        client.images.remove(image.id, force=True)


def ids(client: Any) -> set[str]:
    return {i.id for i in client.images.list(filters={"label": LABEL})}


def project(tmp_path: Path, model_server: str, setup: str) -> Path:
    root = agent_project(tmp_path, model_server, "docker", reps=1)
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "evals/env-ca.pem")  # this machine's CAs, for pip
    write(root / "evals/tools/hello-tool", "#!/bin/sh\necho hello-from-tool\n")
    evals = json.loads((root / "evals/greet.json").read_text())
    sc = evals["scenarios"][0]
    for key in ("criteria", "checkFiles", "expect"):
        sc.pop(key)
    sc["prompt"] = json.dumps({"steps": STEPS, "final": "done"})
    sc["checks"] = CHECKS
    sc["environment"] = {
        "files": [
            {"src": "env-ca.pem", "dest": "/etc/skill-be-test/ca.pem"},
            {"src": "tools/hello-tool", "dest": "/usr/local/bin/hello-tool", "mode": "+x"},
        ],
        "setup": setup,
    }
    (root / "evals/greet.json").write_text(json.dumps(evals))
    return root


def run(root: Path, builds: Path) -> tuple[int, str, dict[str, Any]]:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-fake-key-for-tests", "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    env.pop("CI", None)
    argv = [sys.executable, "-c", RUNNER, str(builds), "run", "--config", str(root / "skill-be.yaml")]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    results = root / ".skill-be" / "results"
    summary = json.loads((sorted(results.iterdir())[-1] / "summary.json").read_text()) if results.exists() else {}
    return done.returncode, done.stdout + done.stderr, summary


def lines_of(summary: dict[str, Any]) -> dict[str, tuple[int, int]]:
    model = next(iter(summary["skills"]["greet"]["scenarios"][0]["models"].values()))
    return {x["line"]: (x["baseline"], x["withSkill"]) for x in model["lines"]}


def count(builds: Path) -> int:
    return builds.read_text().count("build") if builds.exists() else 0


def test_the_environment_is_built_once_reused_and_rebuilt_when_its_setup_changes(
    tmp_path: Path, own_images: Any, model_server: str
) -> None:
    builds = tmp_path / "builds.txt"
    root = project(tmp_path / "p", model_server, SETUP)
    code, printed, summary = run(root, builds)
    assert len(lines_of(summary)) == len(CHECKS), printed
    assert all(v == (100, 100) for v in lines_of(summary).values()), (lines_of(summary), printed)
    assert code == 0, printed
    assert count(builds) == 1 and len(first := ids(own_images)) == 1, printed
    code, printed, summary = run(root, builds)  # the same environment: found by its hash, nothing built
    assert code == 0 and count(builds) == 1 and ids(own_images) == first, printed
    evals = json.loads((root / "evals/greet.json").read_text())
    evals["scenarios"][0]["environment"]["setup"] = [SETUP, "python3 -c 'import six'"]
    (root / "evals/greet.json").write_text(json.dumps(evals))
    code, printed, summary = run(root, builds)  # the setup changed: built again
    assert code == 0 and count(builds) == 2 and len(ids(own_images) - first) == 1, printed
    assert all(v == (100, 100) for v in lines_of(summary).values()), printed


def test_the_environment_file_missing_fails_the_check_that_needs_it(
    tmp_path: Path, own_images: Any, model_server: str
) -> None:
    """The control: the same scenario with the tool not placed; the tool's line fails, the others pass."""
    root = project(tmp_path / "p", model_server, "true")
    evals = json.loads((root / "evals/greet.json").read_text())
    evals["scenarios"][0]["environment"]["files"] = evals["scenarios"][0]["environment"]["files"][:1]
    evals["scenarios"][0]["checks"] = ["grep -qx hello-from-tool tool.txt", "grep -qx read-only rw.txt"]
    (root / "evals/greet.json").write_text(json.dumps(evals))
    code, printed, summary = run(root, tmp_path / "builds.txt")
    assert lines_of(summary) == {
        "[test] check: check 1: grep -qx hello-from-tool tool.txt": (0, 0),
        "[test] check: check 2: grep -qx read-only rw.txt": (100, 100),
    }, printed
    assert code == 1, printed


def test_a_setup_that_fails_is_one_line_and_exit_2_before_any_run(
    tmp_path: Path, own_images: Any, model_server: str
) -> None:
    root = project(tmp_path / "p", model_server, "echo about-to-fail-here; exit 3")
    code, printed, _ = run(root, tmp_path / "builds.txt")
    assert code == 2, printed
    (line,) = [x for x in printed.splitlines() if "environment" in x and "setup" in x and "failed" in x]
    assert line.startswith("evals/greet.json:") and 'scenarios[0] (id "greet-file").environment.setup:' in line
    assert "the environment's setup failed (about-to-fail-here;" in line and "returned a non-zero code: 3" in line
    assert "fake-model rep" not in printed  # no agent ran
