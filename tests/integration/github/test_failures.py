"""Forks, API failures, GitHub Enterprise Server and secrets: the exit code stays the gate's, and each
problem with GitHub is exactly one warning line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.integration.github.conftest import (
    SCORES,
    TOKEN,
    pull_request_event,
    run_action,
    runner_env,
    write_result_file,
)
from tests.support.fake_github import FakeGitHub

from skill_be.adapters import credentials
from skill_be.github import action

PR = pull_request_event()["number"]


def test_fork_skips_comment_and_check_run_with_one_warning(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    write_result_file(workspace)
    ran = run_action(runner_env(workspace, fake, event=pull_request_event(fork=True)), capsys)
    assert ran.code == 0
    assert fake.requests == []
    (warning,) = ran.warnings()
    assert "comes from a fork" in warning and "skipped the pull request comment and the check run" in warning
    assert ran.outputs["result"] == "pass" and ran.outputs["ready"] == "true"
    assert "skill-be verify in `signup`: pass" in ran.summary


@pytest.mark.parametrize(
    ("method", "path", "status", "headers"),
    [
        ("GET", r"/comments$", 401, {}),
        ("GET", r"/comments$", 403, {}),  # a read-only token: "Resource not accessible by integration"
        ("GET", r"/comments$", 404, {}),
        ("POST", r"/comments$", 422, {}),
        ("POST", r"/check-runs$", 500, {}),
        ("POST", r"/check-runs$", 403, {"retry-after": "0"}),  # the secondary rate limit, for good
    ],
)
@pytest.mark.parametrize("gate", ["pass", "blocked"])
def test_each_api_failure_is_one_warning_and_keeps_the_exit_code(
    workspace: Path,
    fake: FakeGitHub,
    capsys: pytest.CaptureFixture[str],
    method: str,
    path: str,
    status: int,
    headers: dict[str, str],
    gate: str,
) -> None:
    write_result_file(
        workspace,
        ready=gate == "pass",
        reasons=() if gate == "pass" else ("1 output(s) could not be generated or graded",),
    )
    fake.fail(method, path, status, times=10, headers=headers)
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == (0 if gate == "pass" else 1)
    (warning,) = ran.warnings()
    assert f"HTTP {status}" in warning and "the exit code is the gate's" in warning
    assert ran.outputs["result"] == gate


def test_a_hang_times_out_into_one_warning(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    write_result_file(workspace)
    fake.hang("GET", r"/comments$", seconds=3, times=10)
    started = time.monotonic()
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == 0
    (warning,) = ran.warnings()
    assert "no answer within 1.0 s" in warning and "skipped the check run" in warning
    assert time.monotonic() - started < 30  # bounded: 3 attempts of 1 s and short waits


def test_5xx_and_rate_limit_are_retried(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    write_result_file(workspace)
    fake.fail("POST", r"/comments$", 502, times=1)
    fake.fail("POST", r"/check-runs$", 403, times=1, headers={"retry-after": "0"}, message="secondary rate limit")
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == 0
    assert ran.warnings() == []
    assert len(fake.comments_on(PR)) == 1 and len(fake.check_runs) == 1
    posts = [r.path.rsplit("/", 1)[-1] for r in fake.writes()]
    assert posts == ["comments", "comments", "check-runs", "check-runs"]


def test_no_token_is_one_warning(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    write_result_file(workspace)
    ran = run_action(runner_env(workspace, fake, github_token=""), capsys)
    assert ran.code == 0
    (warning,) = ran.warnings()
    assert "no github-token" in warning
    assert fake.requests == []


def test_github_enterprise_server_base_url(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_result_file(workspace)
    with FakeGitHub(token=TOKEN, base_path="/api/v3") as ghes:
        ran = run_action(runner_env(workspace, ghes), capsys)
        assert ghes.violations == []
    assert ran.code == 0 and ran.warnings() == []
    assert ghes.requests and all(r.path.startswith("/api/v3/repos/") for r in ghes.requests)
    assert len(ghes.comments) == 1 and len(ghes.check_runs) == 1


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("command", "deploy"),
        ("args", "--config 'unclosed"),
        ("comment", "yes"),
        ("working-directory", "no-such-folder"),
        ("working-directory", "../.."),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], name: str, value: str
) -> None:
    ran = run_action(runner_env(workspace, fake, **{name: value}), capsys)
    assert ran.code == 2
    lines = ran.err.strip().splitlines()
    assert len(lines) == 1 and f'action input "{name}"' in lines[0]
    assert fake.requests == []


CANARY_KEY = "sk-CANARYkey-9f8e7d6c5b4a3210"


@pytest.mark.parametrize("redaction", ["on", "off"])
def test_token_and_api_key_never_leave_redacted(
    workspace: Path,
    fake: FakeGitHub,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    redaction: str,
) -> None:
    """Both canaries reach every place a report goes (recorded reasons, a scored line, the eval
    file); with redaction switched off (the control) they show up, so the test can fail."""
    config = workspace / "signup" / "skill-be.demo.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("  id: demo-model\n", "  id: demo-model\n  apiKeyEnv: SKILL_BE_CANARY_KEY\n"), encoding="utf-8"
    )
    leak = f"the model printed {TOKEN} and {CANARY_KEY}"
    write_result_file(
        workspace,
        ready=False,
        reasons=(f"regression: new-signup / demo-model — {leak}",),
        scores=[{**SCORES[0], "line": leak}],
    )
    if redaction == "off":
        monkeypatch.setattr(action, "Redactor", lambda secrets=(): credentials.Redactor())
        monkeypatch.setattr(credentials.Redactor, "add", lambda self, secret: None)
    env = runner_env(workspace, fake)
    env["SKILL_BE_CANARY_KEY"] = CANARY_KEY
    ran = run_action(env, capsys)
    assert ran.code == 1
    seen = "\n".join(
        [
            ran.out,
            ran.err,
            ran.summary,
            json.dumps(ran.outputs),
            (workspace / ran.outputs["report"]).read_text(encoding="utf-8"),
            *(r.raw for r in fake.requests),
        ]
    )
    assert fake.comments and fake.check_runs
    if redaction == "on":
        assert TOKEN not in seen and CANARY_KEY not in seen
        assert "the model printed *** and ***" in fake.comments_on(PR)[0]["body"]
    else:
        assert TOKEN in seen and CANARY_KEY in seen


@pytest.mark.parametrize(("version", "warned"), [("", False), ("1.0.0", False), ("v1", False), ("2.3.0", True)])
def test_a_different_version_input_is_one_warning(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], version: str, warned: bool
) -> None:
    write_result_file(workspace)
    ran = run_action(runner_env(workspace, fake, version=version), capsys)
    assert ran.code == 0
    warnings = ran.warnings()
    if warned:
        (line,) = warnings
        assert 'the input "version: 2.3.0" is ignored' in line and "skill-be 1.0.0" in line
    else:
        assert warnings == []
