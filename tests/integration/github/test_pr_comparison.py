"""The reviewer's comment against the fake GitHub API (issue 19, items 2 and 4): `verify` on a pull
request compares with the base branch's committed result file (a real git repository built here),
the first lines carry each skill's effect against the base and against no skill, lines are sorted
by how far they moved with a noise marker, and `comment-mode` decides whether a comment is posted."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.integration.github.conftest import pull_request_event, run_action, runner_env, write_result_file
from tests.integration.github.test_base_compare import CRITERION, TEST_LINE, commit_pr, git, repo, scores
from tests.support.fake_github import FakeGitHub

from skill_be.engine.changes import overall
from skill_be.reports.pr_changes import effect_text

PR = pull_request_event()["number"]


def event_on(base: str) -> dict[str, object]:
    event = pull_request_event()
    event["pull_request"]["base"]["sha"] = base  # type: ignore[index]
    return event


def body_of(fake: FakeGitHub) -> str:
    [ours] = fake.comments_on(PR)
    return str(ours["body"])


def test_verify_on_a_pull_request_compares_with_the_base(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)))
    commit_pr(workspace, scores((1, 5), (4, 5)))
    ran = run_action(runner_env(workspace, fake, event_on(base)), capsys)
    assert ran.code == 0, ran.err
    body = body_of(fake)
    lines = body.split("\n")
    assert lines[1] == "### ✅ skill-be verify in `signup`: pass"
    vs_base = overall([("new-signup", "demo-model", (5, 5), (1, 5)), ("new-signup", "demo-model", (4, 5), (4, 5))])
    vs_none = overall([("new-signup", "demo-model", (1, 2), (1, 5)), ("new-signup", "demo-model", (0, 2), (4, 5))])
    want = f"- **signup** ✅ READY · vs master: {effect_text(vs_base)} · vs no skill: {effect_text(vs_none, True)}"
    assert lines[3] == want
    assert effect_text(vs_base).startswith("-40pp (")
    # the change table: the line that moved first, with its marker and interval; the other within the noise
    head = body.index(f"Against master at {base[:7]} (merge base)")
    moved = body.index(f"| ▼ | new-signup *(critical)* | {CRITERION} | demo-model | 100% (5/5) | 20% (1/5) | -80pp (")
    still = body.index(f"| ≈ | new-signup *(critical)* | {TEST_LINE} | demo-model | 80% (4/5) | 80% (4/5) | +0pp (")
    assert head < moved < still
    [run] = fake.check_runs.values()
    assert want in run["output"]["summary"]  # the check run carries the same numbers
    assert want in ran.summary  # the job summary carries the same numbers


def test_comment_mode_changes_posts_nothing_when_nothing_moved(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repo(workspace, scores((4, 5), (4, 5)))
    commit_pr(workspace, scores((4, 5), (4, 5)))
    ran = run_action(runner_env(workspace, fake, event_on(base), comment_mode="changes"), capsys)
    assert ran.code == 0, ran.err
    assert fake.comments_on(PR) == [] and len(fake.check_runs) == 1
    assert "pull request comment not posted" in ran.out
    # the control: a line that moved beyond its noise posts under the same mode
    commit_pr(workspace, scores((0, 5), (4, 5)))
    run_action(runner_env(workspace, fake, event_on(base), comment_mode="changes"), capsys)
    assert "| ▼ |" in body_of(fake)


def test_comment_mode_failures_and_off(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    write_result_file(workspace, scores=scores((4, 5), (4, 5)))
    run_action(runner_env(workspace, fake, comment_mode="failures"), capsys)
    assert fake.comments_on(PR) == []
    write_result_file(workspace, ready=False, reasons=("regression: new-signup / demo-model — x",))
    run_action(runner_env(workspace, fake, comment_mode="off"), capsys)
    assert fake.comments_on(PR) == []
    run_action(runner_env(workspace, fake, comment_mode="failures"), capsys)
    assert "❌ NOT READY" in body_of(fake)


def test_a_bad_comment_mode_is_one_line_and_exit_2(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = run_action(runner_env(workspace, fake, comment_mode="sometimes"), capsys)
    assert ran.code == 2
    assert ran.err.strip().splitlines() == [
        'skill-be: action input "comment-mode": "sometimes" is not one of always, changes, failures, off; '
        'fix the "with:" of the step'
    ]


def test_a_blocking_line_within_the_noise_says_so(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    git(workspace, "init", "-q")
    s = scores((1, 3), (3, 3))
    s[0]["baseline"] = {"passed": 3, "total": 3}
    reason = f'regression: new-signup / demo-model — "{CRITERION}": 100% → 33% (-67pp)'
    why = {"kind": "regression", "source": "gate.regressionOnCritical", "scenario": "new-signup"}
    why |= {"model": "demo-model", "line": CRITERION}
    write_result_file(workspace, ready=False, reasons=(reason,), scores=s, why=[why])
    run_action(runner_env(workspace, fake), capsys)
    body = body_of(fake)
    assert f"{reason} (within the noise: " in body.replace("\\", "")
    assert "reps per arm would decide it (now 3))" in body


@pytest.mark.parametrize("mode", ["block", "warn"])
def test_gate_previous_on_a_pull_request(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    config = workspace / "signup" / "skill-be.demo.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"\ngate:\n  previous: {mode}\n", encoding="utf-8")
    base = repo(workspace, scores((5, 5), (4, 5)))
    commit_pr(workspace, scores((4, 5), (4, 5)))
    ran = run_action(runner_env(workspace, fake, event_on(base)), capsys)
    reason = f'worse than the base: new-signup / demo-model — "{CRITERION}": 100% → 80% (-20pp)'
    body = body_of(fake)
    if mode == "block":
        assert ran.code == 1 and ran.outputs["result"] == "blocked" and ran.outputs["ready"] == "false"
        assert "`Result: blocked by gate.previous or gate.minDelta (NOT READY: signup)`" in body
        [row] = [x for x in body.split("\n") if x.startswith("| signup |")]
        # the change against the base (5/5 -> 4/5) is within its noise, and the note says so
        assert row.startswith(f"| signup | ❌ NOT READY | unchanged (2026-11-30) | {reason} (within the noise: -")
        assert "reps per arm would decide it) |" in row
    else:
        assert ran.code == 0 and ran.outputs["result"] == "pass"
        assert f"- signup: {reason} (gate.previous: warn)" in body


def test_gate_min_delta_under_evidence(workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    config = workspace / "signup" / "skill-be.demo.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "\ngate:\n  rule: evidence\n  minDelta: 10\n", encoding="utf-8"
    )
    git(workspace, "init", "-q")
    write_result_file(workspace, scores=scores((2, 2), (2, 2)))  # +50 and +100 over no skill, 2 reps
    ran = run_action(runner_env(workspace, fake), capsys)
    assert ran.code == 1
    assert "min delta: the overall effect over no skill is +75pp (" in body_of(fake)
    assert "its 95% lower bound must reach 10pp (gate.minDelta)" in body_of(fake)
