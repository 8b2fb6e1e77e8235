"""Forks get their comment (issue 19, item 5): the two jobs of examples/workflows/, emulated.

Job 1 runs on the fork's `pull_request` with a read-only token: the action posts nothing and writes
`artifact-dir`. The artifact is "uploaded" and "downloaded" by copying that folder into a fresh
workspace that holds nothing else (the `workflow_run` job checks nothing out). Job 2 runs there with
a write token and `command: publish`: the comment lands on the fork's pull request and the check
run on the commit the workflow_run event names. A tampered artifact is refused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.integration.github.conftest import (
    SCORES,
    pull_request_event,
    run_action,
    runner_env,
    write_result_file,
)
from tests.support.fake_github import FakeGitHub

from skill_be.github.fork import CHECK, COMMENT, EVENT

PR = pull_request_event()["number"]


def first_job(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict[str, Any]]:
    write_result_file(workspace, ready=False, reasons=("regression: new-signup / demo-model — x",), scores=SCORES)
    event = pull_request_event(fork=True)
    ran = run_action(runner_env(workspace, fake, event, artifact_dir="skill-be-pr-report"), capsys)
    assert ran.code == 1
    assert fake.writes() == []  # a fork's token: nothing posted
    [warning] = ran.warnings()
    assert "artifact-dir holds them for a workflow_run job" in warning
    folder = workspace / "skill-be-pr-report"
    assert sorted(p.name for p in folder.iterdir()) == sorted([EVENT, COMMENT, CHECK])
    return folder, event


def second_job(tmp: Path, folder: Path, fake: FakeGitHub, commit: str, **inputs: str) -> dict[str, str]:
    """The workflow_run job's workspace: the downloaded artifact and nothing else."""
    ws = tmp / "report-workspace"
    shutil.copytree(folder, ws / "skill-be-pr-report")
    env = runner_env(ws, fake, {"action": "completed", "workflow_run": {"head_sha": commit}}, command="publish")
    env.update(
        {
            "GITHUB_EVENT_NAME": "workflow_run",
            "INPUT_ARTIFACT-DIR": str(ws / "skill-be-pr-report"),
            "INPUT_COMMIT": commit,
            "INPUT_ARGS": "",
            "INPUT_WORKING-DIRECTORY": ".",
        }
    )
    for k, v in inputs.items():
        env[f"INPUT_{k.upper().replace('_', '-')}"] = v
    return env


def test_the_workflow_run_job_posts_to_the_forks_pull_request(
    tmp_path: Path, workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, event = first_job(workspace, fake, capsys)
    head = event["pull_request"]["head"]["sha"]
    ran = run_action(second_job(tmp_path, folder, fake, head), capsys)
    assert ran.code == 0, ran.err
    [comment] = fake.comments_on(PR)
    assert comment["body"] == (folder / COMMENT).read_text(encoding="utf-8")
    assert "### ❌ skill-be verify in `signup`: blocked" in comment["body"]
    [run] = fake.check_runs.values()
    assert run["head_sha"] == head and run["conclusion"] == "failure" and run["name"] == "skill-be (signup)"
    # a second push updates the same comment
    ran = run_action(second_job(tmp_path / "again", folder, fake, head), capsys)
    assert len(fake.comments_on(PR)) == 1 and "pull request comment updated" in ran.out


def test_a_commit_that_is_not_the_saved_pull_requests_head_is_refused(
    tmp_path: Path, workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = first_job(workspace, fake, capsys)
    ran = run_action(second_job(tmp_path, folder, fake, "0" * 40), capsys)
    assert ran.code == 2 and fake.writes() == []
    assert ran.err.startswith('skill-be: action input "commit": must be the workflow run\'s head commit')


@pytest.mark.parametrize(
    "tamper",
    [
        lambda run: run.update(conclusion="skipped"),
        lambda run: run.update(name="ci / build"),
        lambda run: run["annotations"].append({"path": "x", "start_line": 0}),
        lambda run: run.update(summary="x" * 70_000),
    ],
    ids=["conclusion", "name", "annotation", "summary-size"],
)
def test_a_tampered_artifact_is_refused(
    tmp_path: Path, workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], tamper: Any
) -> None:
    folder, event = first_job(workspace, fake, capsys)
    run = json.loads((folder / CHECK).read_text(encoding="utf-8"))
    tamper(run)
    (folder / CHECK).write_text(json.dumps(run), encoding="utf-8")
    ran = run_action(second_job(tmp_path, folder, fake, event["pull_request"]["head"]["sha"]), capsys)
    assert ran.code == 2 and fake.writes() == []
    assert f"{CHECK}: " in ran.err and "upload the folder skill-be wrote" in ran.err


def test_a_comment_without_skill_bes_marker_is_refused(
    tmp_path: Path, workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, event = first_job(workspace, fake, capsys)
    (folder / COMMENT).write_text("LGTM, merge it\n", encoding="utf-8")
    ran = run_action(second_job(tmp_path, folder, fake, event["pull_request"]["head"]["sha"]), capsys)
    assert ran.code == 2 and fake.writes() == []
