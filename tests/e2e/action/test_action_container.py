"""The action's image run the way the GitHub runner runs a docker action, against the fake GitHub API.

`docker run --workdir /github/workspace` with the workspace, the runner's file-command and workflow
folders bind-mounted, the Docker socket, `GITHUB_*` and `INPUT_*` (dashes kept) variables and a real
`pull_request` event file. The container sits on an internal Docker network: the only address it can
reach is the fake API on the network's gateway (nothing outside, no registry, no model).

The action's image is the verify image (skill-be-verify:<version>, action.yml's), as on GitHub: `verify`
runs in it, and `run` hands itself to the full image (skill-be:<version>, the verify image's
SKILL_BE_FULL_IMAGE) in a sibling container, which the test sees on the engine's event log. The
images come from .ci/steps/40-docker.sh, run first: it rebuilds them when the sources changed, so they
hold this checkout's action code. SKILL_BE_TEST_VERIFY_IMAGE names a verify image built from this
checkout under another tag (a helper's own build; its SKILL_BE_FULL_IMAGE is then that build's).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.github.conftest import parse_outputs, pull_request_event
from tests.support.fake_github import FakeGitHub
from tests.support.images import built_image

from skill_be import __version__
from skill_be.project.loader import load_project

REPO = Path(__file__).resolve().parents[3]
VERIFY_IMAGE = f"skill-be-verify:{__version__}"
TOKEN = "ghs_E2EcanaryToken0123456789"
PR = pull_request_event()["number"]
HEAD_SHA = pull_request_event()["pull_request"]["head"]["sha"]
# The first test may (re)build the image: .ci/steps/40-docker.sh takes minutes after a source change.
pytestmark = pytest.mark.timeout(1800)


def docker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def image() -> str:
    """The action's image: the verify image."""
    if os.environ.get("SKILL_BE_TEST_VERIFY_IMAGE"):
        return os.environ["SKILL_BE_TEST_VERIFY_IMAGE"]
    built_image()  # all three images, the verify one among them
    return VERIFY_IMAGE


def full_image_of(verify_image: str) -> str:
    env = docker("image", "inspect", "-f", "{{json .Config.Env}}", verify_image).stdout
    (full,) = [e.split("=", 1)[1] for e in json.loads(env) if e.startswith("SKILL_BE_FULL_IMAGE=")]
    return str(full)


def handoffs(since: float, until: float) -> list[str]:
    """The images of the sibling containers the action handed its command to (the engine's log)."""
    events = docker(
        "events", "--since", f"{since:.3f}", "--until", f"{until:.3f}", "--filter", "type=container",
        "--filter", "event=create", "--filter", "label=skill-be.handoff", "--format", "{{json .}}",
    )  # fmt: skip
    return [json.loads(line)["Actor"]["Attributes"]["image"] for line in events.stdout.splitlines()]


@pytest.fixture(scope="module")
def network() -> Iterator[tuple[str, str]]:
    """An internal network (no route out) and its gateway, where the fake API listens."""
    name = f"skill-be-action-{secrets.token_hex(4)}"
    made = docker("network", "create", "--internal", name)
    assert made.returncode == 0, made.stderr
    try:
        gateway = docker("network", "inspect", name, "-f", "{{range .IPAM.Config}}{{.Gateway}}{{end}}").stdout.strip()
        assert gateway, "the network has no gateway address"
        yield name, gateway
    finally:
        docker("network", "rm", name)


class Runner:
    """The runner's side of one step: its temp folders, the event file, and the docker run line."""

    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "work"
        self.temp = tmp / "_temp"
        self.workflow = self.temp / "_github_workflow"
        self.files = self.temp / "_runner_file_commands"
        for d in (self.workspace, self.workflow, self.files):
            d.mkdir(parents=True)
        (self.workflow / "event.json").write_text(json.dumps(pull_request_event()), encoding="utf-8")
        (self.files / "set_output").write_text("", encoding="utf-8")
        (self.files / "step_summary").write_text("", encoding="utf-8")

    def run(self, image: str, network: str, api_url: str, name: str, **inputs: str) -> subprocess.CompletedProcess[str]:
        env = {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_OUTPUT": "/github/file_commands/set_output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
            "GITHUB_REPOSITORY": "Codertocat/Hello-World",
            "GITHUB_SHA": "0000000000000000000000000000000000000001",
            "GITHUB_RUN_ID": "777",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_API_URL": api_url,
            "SKILL_BE_GITHUB_TIMEOUT": "5",
            "INPUT_GITHUB-TOKEN": TOKEN,
            **{f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()},
        }
        argv = ["docker", "run", "--name", name, "--rm", "--network", network, "--workdir", "/github/workspace"]
        argv += ["-v", f"{self.workspace}:/github/workspace", "-v", f"{self.workflow}:/github/workflow"]
        argv += ["-v", f"{self.files}:/github/file_commands", "-v", "/var/run/docker.sock:/var/run/docker.sock"]
        for k, v in env.items():
            argv += ["-e", f"{k}={v}"]
        argv += ["--entrypoint", "/opt/skill-be/bin/python", image, "-m", "skill_be.github"]
        return subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)

    def outputs(self) -> dict[str, str]:
        return parse_outputs((self.files / "set_output").read_text(encoding="utf-8"))

    def summary(self) -> str:
        return (self.files / "step_summary").read_text(encoding="utf-8")


def _sandboxes(since: float, until: float) -> dict[str, tuple[set[str], set[str]]]:
    """The code-test sandboxes (containers labelled skill-be.run) by run id: the ids created and
    destroyed, from the engine's event log."""
    events = docker(
        "events", "--since", f"{since:.3f}", "--until", f"{until:.3f}",
        "--filter", "type=container", "--filter", "label=skill-be.run", "--format", "{{json .}}",
    )  # fmt: skip
    runs: dict[str, tuple[set[str], set[str]]] = {}
    for line in events.stdout.splitlines():
        e: dict[str, Any] = json.loads(line)
        run = e.get("Actor", {}).get("Attributes", {}).get("skill-be.run", "")
        created, destroyed = runs.setdefault(run, (set(), set()))
        if e.get("Action") == "create":
            created.add(e["id"])
        elif e.get("Action") == "destroy":
            destroyed.add(e["id"])
    return runs


def _sandboxes_removed(started: float, ended: float) -> dict[str, tuple[set[str], set[str]]]:
    """The sandbox runs that began while the action ran, once each has removed all its containers.
    The engine is shared (other tests may run sandboxes at the same time), so each run is waited
    for, up to 90 s; a run that leaves a container behind never gets there."""
    deadline = time.time() + 90
    while True:
        now = time.time()
        began = {run for run, (created, _) in _sandboxes(started, ended).items() if created}
        runs = {run: ids for run, ids in _sandboxes(started, now).items() if run in began}
        if all(created <= destroyed for created, destroyed in runs.values()) or now > deadline:
            return runs
        time.sleep(2)


def test_run_on_the_signup_demo_as_the_runner_starts_it(image: str, network: tuple[str, str], tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    shutil.copytree(
        REPO / "examples" / "signup", runner.workspace, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".skill-be")
    )
    name = f"skill-be-action-run-{secrets.token_hex(4)}"
    with FakeGitHub(token=TOKEN, host=network[1]) as gh:
        started = time.time()
        done = runner.run(image, network[0], gh.url, name, command="run", args="--config skill-be.demo.yaml")
        ended = time.time() + 1
        assert gh.violations == []
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "Result: pass" in done.stdout
    # The verify image has no agent CLIs: the run went to one sibling container of the full image.
    assert handoffs(started, ended) == [full_image_of(image)]
    assert "::warning::" not in log and TOKEN not in log
    (comment,) = gh.comments_on(PR)
    assert comment["body"].startswith("<!-- skill-be:.:skill-be.demo.yaml -->")
    assert (
        "| ▲ | new-signup *(critical)* | [test] answers 201 with the new user when the input is valid | 0% (0/2) | 100% (2/2) | +100pp (+7 to +100) |"
        in comment["body"]
    )
    (run,) = gh.check_runs.values()
    assert (run["name"], run["head_sha"], run["conclusion"]) == ("skill-be", HEAD_SHA, "success")
    outputs = runner.outputs()
    assert outputs["result"] == "pass" and outputs["ready"] == "true" and outputs["skills-not-ready"] == ""
    assert (runner.workspace / outputs["summary-json"]).is_file() and (runner.workspace / outputs["report"]).is_file()
    assert "skill-be run: pass" in runner.summary() and "## Release Gate" in runner.summary()
    # The code tests ran in sibling containers on the host's engine, and every one was removed.
    runs = _sandboxes_removed(started, ended)
    assert runs, "no sibling container ran the code tests"
    left = set(docker("ps", "-aq", "--no-trunc").stdout.split())
    for run, (created, destroyed) in runs.items():
        assert created <= destroyed and not created & left, f"sandbox run {run} left containers"


def test_verify_with_a_committed_result_file(image: str, network: tuple[str, str], tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    shutil.copytree(
        REPO / "examples" / "signup", runner.workspace / "signup", ignore=shutil.ignore_patterns(".skill-be")
    )
    project = load_project(runner.workspace / "signup" / "skill-be.demo.yaml", warn=lambda _: None)
    (skill,) = project.skills
    entry = {
        "date": "2026-11-30",
        "fingerprint": project.fingerprint(skill),
        "ready": True,
        "reasons": [],
        "models": ["demo-model"],
        "grader": "demo-grader",
        "scores": [
            {
                "model": "demo-model", "scenario": "new-signup", "line": "Never writes the password to a log",
                "kind": "criterion", "critical": True,
                "baseline": {"passed": 1, "total": 3}, "withSkill": {"passed": 3, "total": 3},
            }
        ],
    }  # fmt: skip
    project.config.result_file.parent.mkdir(parents=True, exist_ok=True)
    project.config.result_file.write_text(
        json.dumps({"skillBeVersion": __version__, "skills": {"signup": entry}}), encoding="utf-8"
    )
    name = f"skill-be-action-verify-{secrets.token_hex(4)}"
    with FakeGitHub(token=TOKEN, host=network[1]) as gh:
        gh.add_comment(PR, "<!-- skill-be:signup:skill-be.demo.yaml -->\nthe last push's report")
        started = time.time()
        done = runner.run(
            image, network[0], gh.url, name,
            command="verify", args="--config skill-be.demo.yaml", working_directory="signup",
        )  # fmt: skip
        assert gh.violations == []
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert handoffs(started, time.time() + 1) == []  # verify ran in the verify image itself
    assert "::warning::" not in log and TOKEN not in log
    (comment,) = gh.comments_on(PR)  # updated in place
    assert "the last push's report" not in comment["body"]
    assert "| signup | ✅ READY | unchanged (2026-11-30) |" in comment["body"]
    assert (
        "| ≈ | new-signup *(critical)* | Never writes the password to a log | 33% (1/3) | 100% (3/3) | +67pp (-6 to +94) |"
        in comment["body"]
    )
    assert [r.method for r in gh.writes()] == ["PATCH", "POST"]
    (run,) = gh.check_runs.values()
    assert (run["name"], run["conclusion"]) == ("skill-be (signup)", "success")
    assert runner.outputs()["report"] == "signup/.skill-be/action-verify-report.md"
