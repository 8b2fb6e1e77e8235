"""`command: merge` over two shards of the signup demo, laid out as the README's matrix workflow
downloads them, and `command: regrade` of an earlier run: each writes a run folder, so the comment,
the check run, the outputs and the job summary are `run`'s."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.integration.github.conftest import pull_request_event, run_action, runner_env
from tests.support.cli import skill_be
from tests.support.fake_github import FakeGitHub

PR = pull_request_event()["number"]
ROW = (
    "| ▲ | new-signup *(critical)* | [test] answers 409 and saves nobody when the email is taken "
    "| 0% (0/2) | 100% (2/2) | +100pp (+7 to +100) |"
)


def demo(signup: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return skill_be(signup, *args, "--config", "skill-be.demo.yaml", drop=("GITHUB_", "INPUT_"))


def run_folders(signup: Path) -> set[Path]:
    results = signup / ".skill-be" / "demo-results"
    return set(results.iterdir()) if results.is_dir() else set()


def shards(signup: Path, n: int) -> list[Path]:
    """Each shard's run folder moved to shards/skill-be-shard-K/, as download-artifact lays them out."""
    moved = []
    for k in range(1, n + 1):
        before = run_folders(signup)
        r = demo(signup, "run", "--shard", f"{k}/{n}")
        assert r.returncode == 0, r.stdout + r.stderr
        (folder,) = run_folders(signup) - before
        dest = signup / "shards" / f"skill-be-shard-{k}" / folder.name
        dest.parent.mkdir(parents=True)
        moved.append(Path(shutil.move(folder, dest)))
    return moved


def test_merge_expands_the_shard_folders_and_reports_like_run(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    signup = workspace / "signup"
    parts = shards(signup, 2)
    assert not (signup / ".skill-be" / "demo.result.json").exists()  # a shard never writes the result file
    args = "--config skill-be.demo.yaml shards/skill-be-shard-*/*/ --junit merged.junit.xml"
    ran = run_action(runner_env(workspace, fake, command="merge", args=args), capsys)
    assert ran.code == 0, ran.out + ran.err
    assert ran.warnings() == []
    assert f"Merged: {', '.join(p.relative_to(signup).as_posix() for p in parts)}\n" in ran.out
    summary_json = workspace / ran.outputs["summary-json"]
    assert summary_json.name == "summary.json" and summary_json.is_file()
    assert summary_json.parent not in parts and summary_json.parent.parent == signup / ".skill-be" / "demo-results"
    assert ran.outputs["report"] == ran.outputs["summary-json"].replace("summary.json", "action-report.md")
    assert ran.outputs["result"] == "pass" and ran.outputs["ready"] == "true"
    assert ran.outputs["skills-not-ready"] == ""
    assert (signup / "merged.junit.xml").is_file()
    (c,) = fake.comments_on(PR)
    body = c["body"]
    assert "skill-be merge in `signup`: pass" in body
    # Both shards' reps are in the merged scores: 2 reps, each shard ran one.
    assert "Models: `demo-model` · Reps: 2 · Tokens: baseline (estimated) " in body
    assert ROW in body
    assert "## Release Gate" in ran.summary and body.split("\n", 1)[1] in ran.summary
    assert (workspace / ran.outputs["report"]).read_text(encoding="utf-8") == ran.summary
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "success" and run["output"]["title"] == "READY: 1 skill(s)"
    recorded = json.loads((signup / ".skill-be" / "demo.result.json").read_text(encoding="utf-8"))
    assert recorded["skills"]["signup"]["ready"] is True


def test_merge_with_a_shard_missing_is_an_error_in_the_comment_and_check_run(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    signup = workspace / "signup"
    shards(signup, 2)
    args = "--config skill-be.demo.yaml shards/skill-be-shard-1/*/"
    ran = run_action(runner_env(workspace, fake, command="merge", args=args), capsys)
    assert ran.code == 2, ran.out + ran.err
    assert ran.outputs["result"] == "error" and ran.outputs["ready"] == "false"
    assert ran.outputs["summary-json"] == ""
    (c,) = fake.comments_on(PR)
    assert "skill-be merge in `signup`: error" in c["body"]
    assert "shard 2/2" in c["body"]  # the refusal line names the missing shard
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "failure" and "shard 2/2" in run["output"]["title"]


def test_regrade_grades_the_earlier_answers_with_todays_criteria(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    signup = workspace / "signup"
    before = run_folders(signup)
    r = demo(signup, "run")
    assert r.returncode == 0, r.stdout + r.stderr
    (earlier,) = run_folders(signup) - before
    # A criterion the demo grader never meets, on the same prompt: regrade may grade the old answers.
    eval_file = signup / "evals" / "signup.json"
    doc = json.loads(eval_file.read_text(encoding="utf-8"))
    doc["scenarios"][0]["criteria"].append("Hashes the password before saving it")
    eval_file.write_text(json.dumps(doc, indent=2), encoding="utf-8")

    ran = run_action(runner_env(workspace, fake, command="regrade"), capsys)
    assert ran.code == 1, ran.out + ran.err
    assert ran.warnings() == []
    summary_json = workspace / ran.outputs["summary-json"]
    assert summary_json.parent != earlier and summary_json.is_file()
    assert json.loads(summary_json.read_text(encoding="utf-8"))["regradeOf"] == str(earlier.resolve())
    assert ran.outputs["report"] == ran.outputs["summary-json"].replace("summary.json", "action-report.md")
    assert ran.outputs["result"] == "blocked" and ran.outputs["ready"] == "false"
    assert ran.outputs["skills-not-ready"] == "signup"
    (c,) = fake.comments_on(PR)
    body = c["body"]
    assert "skill-be regrade in `signup`: blocked" in body
    assert "| signup | ❌ NOT READY |" in body
    assert "Models: `demo-model` · Reps: 2 · Tokens: " in body
    assert ROW in body  # the code tests ran again on the same answers
    assert "| new-signup *(critical)* | Hashes the password before saving it | 0% (0/2) | 0% (0/2) |" in body
    # The skill's own report follows in the job summary, naming the run it graded.
    assert f"Regrade: the answers of run {earlier.name}, graded again" in ran.summary
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "failure" and run["output"]["title"] == "NOT READY: signup"
