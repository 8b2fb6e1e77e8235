"""`skill-be verify --base REF --comment FILE` and `run ... --comment FILE` (github/local_comment.py)
write the bytes the action posts for the same command (compared with the action's own comment on the
fake GitHub API), before anything is pushed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.integration.github.conftest import pull_request_event, run_action, runner_env
from tests.integration.github.test_base_compare import commit_pr, repo, scores
from tests.integration.github.test_pr_comparison import event_on
from tests.support.fake_github import FakeGitHub

from skill_be.github.local_comment import action_args

PR = pull_request_event()["number"]


def cli(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def job_env(env: dict[str, str]) -> dict[str, str]:
    """A CI job's variables without the action's inputs: what a `run:` step of the same job sees."""
    return {k: v for k, v in env.items() if not k.startswith("INPUT_")}


def test_verify_base_comment_is_the_action_comment(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)))
    commit_pr(workspace, scores((1, 5), (4, 5)))
    env = runner_env(workspace, fake, event_on(base), base_ref="main")
    ran = run_action(env, capsys)
    assert ran.code == 0, ran.err
    [posted] = fake.comments_on(PR)
    out = workspace / "comment.md"
    done = cli(workspace / "signup", job_env(env), "--config", "skill-be.demo.yaml", "verify", "--base", "main",
               "--comment", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == str(posted["body"]).encode("utf-8")
    assert "vs main:" in out.read_text()  # the comparison with the base is in it
    # the control: without --base there is no comparison, and the bytes differ
    cli(workspace / "signup", job_env(env), "--config", "skill-be.demo.yaml", "verify", "--comment", str(out))
    assert "vs main:" not in out.read_text() and out.read_bytes() != str(posted["body"]).encode("utf-8")


def test_run_comment_is_the_action_comment(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    env = runner_env(workspace, fake, command="run", previous_arm="false")
    ran = run_action(env, capsys)
    assert ran.code == 0, ran.out + ran.err
    [posted] = fake.comments_on(PR)
    out = workspace / "comment.md"
    done = cli(workspace / "signup", job_env(env), "--config", "skill-be.demo.yaml", "run", "--comment", str(out))
    assert done.returncode == 0, done.stderr
    assert "skill-be run in `signup`: pass" in out.read_text()
    assert out.read_bytes() == str(posted["body"]).encode("utf-8")


def test_a_laptop_gets_the_comment_without_a_run_link(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    root = Path(__file__).resolve().parents[3] / "examples" / "durations"
    out = tmp_path / "c.md"
    done = cli(root, env, "--config", "skill-be.demo.yaml", "verify", "--comment", str(out))
    assert done.returncode in (0, 1), done.stderr
    assert out.read_text().startswith("<!-- skill-be") and "actions/runs" not in out.read_text()
    assert f"Comment: {out}" in done.stderr


def test_the_action_args_leave_out_what_only_the_command_line_has() -> None:
    assert action_args(["--config", "x.yaml", "--base", "main", "--comment", "c.md", "--color=never"]) == (
        ("--config", "x.yaml"),
        "main",
    )
    assert action_args(["--base=dev", "a", "--reps", "2"]) == (("a", "--reps", "2"), "dev")
