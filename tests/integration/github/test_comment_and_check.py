"""The action's comment, check run, summary and outputs, with `verify`, against the fake GitHub API."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.integration.github.conftest import SCORES, pull_request_event, run_action, runner_env, write_result_file
from tests.support.fake_github import FakeGitHub

from skill_be.reports.pr_comment import marker

HEAD_SHA = pull_request_event()["pull_request"]["head"]["sha"]
PR = pull_request_event()["number"]


def test_comment_is_created_then_updated_in_place(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    write_result_file(workspace, scores=SCORES)
    fake.add_comment(PR, "a reviewer's comment")
    first = run_action(runner_env(workspace, fake), capsys)
    assert first.code == 0, first.err
    ours = [c for c in fake.comments_on(PR) if c["body"].startswith(marker("signup", "skill-be.demo.yaml"))]
    assert len(ours) == 1
    body = ours[0]["body"]
    assert "skill-be verify in `signup`: pass" in body
    assert "| signup | ✅ READY | unchanged (2026-11-30) |" in body
    # The deltas behind verify: the recorded scores, with their sample sizes.
    assert (
        "| ≈ | new-signup *(critical)* | Validates the email before creating the account | 50% (1/2) | 100% (2/2) | +50pp (-27 to +91) |"
        in body
    )
    assert "<details><summary><b>signup</b>" in body  # READY: collapsed
    assert "https://github.com/Codertocat/Hello-World/actions/runs/4242" in body
    assert "Result: pass" in body

    # A push changes SKILL.md: the same comment is updated, not a second one posted.
    skill_md = workspace / "signup" / "skills" / "signup" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nOne more rule.\n", encoding="utf-8")
    second = run_action(runner_env(workspace, fake), capsys)
    assert second.code == 1
    ours = [c for c in fake.comments_on(PR) if c["body"].startswith(marker("signup", "skill-be.demo.yaml"))]
    assert len(ours) == 1 and len(fake.comments_on(PR)) == 2
    assert "**changed**: run it again" in ours[0]["body"]
    assert "skill-be verify in `signup`: blocked" in ours[0]["body"]
    methods = [(r.method, r.path.rsplit("/", 2)[-2]) for r in fake.writes() if "comments" in r.path]
    assert methods == [("POST", "2"), ("PATCH", "comments")]

    # Both runs made a check run on the pull request's head commit, not the merge commit.
    runs = list(fake.check_runs.values())
    assert [r["conclusion"] for r in runs] == ["success", "failure"]
    assert {r["head_sha"] for r in runs} == {HEAD_SHA}
    assert runs[0]["name"] == "skill-be (signup)"
    assert runs[1]["output"]["title"] == "NOT READY: signup"
    assert second.warnings() == []


def test_outputs_and_job_summary(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    write_result_file(
        workspace,
        ready=False,
        reasons=('universal 0%: new-signup — "Never writes the password to a log"',),
        why=[
            {
                "kind": "zero",
                "source": "gate.blockOnZero",
                "scenario": "new-signup",
                "line": "Never writes the password to a log",
            }
        ],
    )
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == 1
    assert ran.outputs == {
        "result": "blocked",
        "ready": "false",
        "skills-not-ready": "signup",
        "report": "signup/.skill-be/action-verify-report.md",
        "summary-json": "",
    }
    report = (workspace / ran.outputs["report"]).read_text(encoding="utf-8")
    assert ran.summary == report
    assert "| signup | ❌ NOT READY | unchanged (2026-11-30) | universal 0%: new-signup" in report
    # The blocking line is annotated at its scenario in the eval file.
    (run,) = fake.check_runs.values()
    (note,) = run["annotations"]
    assert note["path"] == "signup/evals/signup.json"
    assert note["start_line"] == 5  # the line of "id": "new-signup"
    assert note["annotation_level"] == "failure"


def test_blocked_without_failing_the_job(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    write_result_file(workspace, ready=False, reasons=("1 output(s) could not be generated or graded",))
    ran = run_action(runner_env(workspace, fake, fail_on_not_ready="false"), capsys)
    assert ran.code == 0
    assert ran.outputs["result"] == "blocked"
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "neutral"


def test_pagination_finds_the_comment_past_the_first_hundred(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    write_result_file(workspace)
    for i in range(130):
        fake.add_comment(PR, f"comment {i}")
    ours = fake.add_comment(PR, marker("signup", "skill-be.demo.yaml") + "\nold report", "github-actions[bot]")
    for i in range(20):
        fake.add_comment(PR, f"later comment {i}")
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == 0
    assert len(fake.comments_on(PR)) == 151
    assert "old report" not in fake.comments[ours]["body"]
    assert "skill-be verify in `signup`: pass" in fake.comments[ours]["body"]
    pages = [r.query.get("page", ["1"])[0] for r in fake.requests if r.method == "GET"]
    assert pages == ["1", "2"]
    assert not [r for r in fake.writes() if r.method == "POST" and r.path.endswith("/comments")]


def test_a_200_kb_report_is_trimmed_under_the_comment_limit(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = [
        {**SCORES[0], "line": f"criterion {i}: " + "x" * 150, "baseline": {"passed": i % 3, "total": 3}}
        for i in range(1200)
    ]
    write_result_file(workspace, ready=False, reasons=("regression: new-signup / demo-model — many",), scores=scores)
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == 1
    assert len(ran.summary) > 200_000  # the job summary keeps it all (under 1 MiB)
    (c,) = fake.comments_on(PR)
    body = c["body"]
    assert len(body) <= 65_536
    assert "**Trimmed**:" in body and "https://github.com/Codertocat/Hello-World/actions/runs/4242" in body
    assert body.count("<details") == body.count("</details>")
    assert body.rstrip().split("\n")[-1].startswith("**Trimmed**:")
    (run,) = fake.check_runs.values()
    assert len(run["output"]["summary"]) <= 65_535


def test_push_event_puts_the_check_run_on_github_sha_and_posts_no_comment(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    write_result_file(workspace)
    env = runner_env(workspace, fake, event=webhook_push())
    env["GITHUB_EVENT_NAME"] = "push"
    ran = run_action(env, capsys)
    assert ran.code == 0
    assert fake.comments == {}
    (run,) = fake.check_runs.values()
    assert run["head_sha"] == env["GITHUB_SHA"]


def webhook_push() -> dict[str, object]:
    from tests.support.fake_github import webhook_examples

    return webhook_examples("push")[0]


def test_a_config_error_exits_2_and_still_reports(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    config = workspace / "signup" / "skill-be.demo.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("reps: 2", "reps: two"), encoding="utf-8")
    ran = run_action(runner_env(workspace, fake, fail_on_not_ready="false"), capsys)
    assert ran.code == 2
    assert ran.outputs["result"] == "error" and ran.outputs["ready"] == "false"
    (c,) = fake.comments_on(PR)
    assert "skill-be verify in `signup`: error" in c["body"] and "reps" in c["body"]
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "failure" and run["output"]["title"].startswith("error: ")
