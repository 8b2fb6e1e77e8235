"""The action against the fake GitHub API: a copy of the signup demo in a workspace, its result file,
event payloads from @octokit/webhooks-examples, and the runner's variables."""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from tests.support.fake_github import FakeGitHub, webhook_examples

from skill_be.github import action
from skill_be.project.loader import load_project

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "ghs_CANARYtoken0123456789abcdefghijkl"
REPO = "Codertocat/Hello-World"


class Ran(NamedTuple):
    code: int
    out: str
    err: str
    outputs: dict[str, str]
    summary: str

    def warnings(self) -> list[str]:
        return [line for line in (self.out + self.err).splitlines() if line.startswith("::warning::")]


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN, repository=REPO) as gh:
        yield gh
        assert gh.violations == [], "requests GitHub's REST description does not allow"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    shutil.copytree(ROOT / "examples" / "signup", ws / "signup", ignore=shutil.ignore_patterns(".skill-be"))
    return ws


def pull_request_event(fork: bool = False) -> dict[str, Any]:
    """A real `pull_request` payload; the fork's head repository is the real forkee of a `fork` event."""
    event = copy.deepcopy(webhook_examples("pull_request")[0])
    if fork:
        event["pull_request"]["head"]["repo"] = copy.deepcopy(webhook_examples("fork")[0]["forkee"])
    return event


def write_result_file(
    workspace: Path,
    ready: bool = True,
    reasons: tuple[str, ...] = (),
    scores: list[dict[str, Any]] | None = None,
    why: list[dict[str, str]] | None = None,
) -> Path:
    """The signup demo's result file as `run` would record it, fingerprints of the current files."""
    project = load_project(workspace / "signup" / "skill-be.demo.yaml", warn=lambda _: None)
    skills: dict[str, Any] = {}
    for s in project.skills:
        entry: dict[str, Any] = {
            "date": "2026-11-30",
            "fingerprint": project.fingerprint(s),
            "ready": ready,
            "reasons": list(reasons),
            "models": ["demo-model"],
            "grader": "demo-grader",
        }
        if scores is not None:
            entry["scores"] = scores
        if why is not None:
            entry["why"] = why  # the reasons as data, as `run` records them beside their words
        skills[s.name] = entry
    path = project.config.result_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"skillBeVersion": "0.1.0", "skills": skills}, indent=2) + "\n", encoding="utf-8")
    return path


SCORES = [
    {
        "model": "demo-model",
        "scenario": "new-signup",
        "line": "Validates the email before creating the account",
        "kind": "criterion",
        "critical": True,
        "baseline": {"passed": 1, "total": 2},
        "withSkill": {"passed": 2, "total": 2},
    },
    {
        "model": "demo-model",
        "scenario": "new-signup",
        "line": "[test] rejects a duplicate email",
        "kind": "test",
        "critical": True,
        "baseline": {"passed": 0, "total": 2},
        "withSkill": {"passed": 2, "total": 2},
    },
]


def runner_env(
    workspace: Path,
    fake: FakeGitHub | None,
    event: dict[str, Any] | None = None,
    command: str = "verify",
    **inputs: str,
) -> dict[str, str]:
    """The variables the runner gives a docker action, inputs with their dashes."""
    tmp = workspace.parent
    event_path = tmp / "event.json"
    event_path.write_text(json.dumps(event if event is not None else pull_request_event()), encoding="utf-8")
    (tmp / "output.txt").write_text("", encoding="utf-8")
    (tmp / "summary.md").write_text("", encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp)),  # skill-be's TypeScript cache is there
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_SHA": "0000000000000000000000000000000000000001",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_API_URL": fake.url if fake else "http://127.0.0.1:9",
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        # Retries stay short in tests; the defaults are 10 s, 60 s and 3 attempts.
        "SKILL_BE_GITHUB_TIMEOUT": "1",
        "SKILL_BE_GITHUB_MAX_WAIT": "0.2",
        "INPUT_COMMAND": command,
        "INPUT_ARGS": "--config skill-be.demo.yaml",
        "INPUT_WORKING-DIRECTORY": "signup",
        "INPUT_GITHUB-TOKEN": TOKEN,
        "INPUT_COMMENT": "true",
        "INPUT_CHECK-RUN": "true",
        "INPUT_ANNOTATIONS": "true",
        "INPUT_FAIL-ON-NOT-READY": "true",
    }
    for key, value in inputs.items():
        env[f"INPUT_{key.upper().replace('_', '-')}"] = value
    return env


def parse_outputs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if "<<" in lines[i]:
            key, delim = lines[i].split("<<", 1)
            j = lines.index(delim, i + 1)
            out[key] = "\n".join(lines[i + 1 : j])
            i = j + 1
        else:
            i += 1
    return out


def run_action(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> Ran:
    capsys.readouterr()
    code = action.main(env)
    cap = capsys.readouterr()
    outputs = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8"))
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    return Ran(code, cap.out, cap.err, outputs, summary)
