"""Tokens and cost against the base in the action's report (issue 19, item 4): the result files'
`usage` read at the merge base and now, one line per skill in the comment, the check run and the job
summary; "not recorded at base" when the base's file has none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.integration.github.conftest import run_action, runner_env, write_result_file
from tests.integration.github.test_base_compare import git, scores
from tests.integration.github.test_pr_comparison import PR, event_on
from tests.support.fake_github import FakeGitHub


def usage(skill_tokens: float, cost: float) -> dict[str, Any]:
    arm = {"answers": 5, "inputTokens": 400.0, "outputTokens": 60.0, "costUsd": 0.002}
    return {"baseline": arm, "withSkill": {**arm, "inputTokens": 400 + skill_tokens, "costUsd": 0.002 + cost},
            "estimated": False}  # fmt: skip


def record(workspace: Path, counts: tuple[int, int], use: dict[str, Any] | None) -> None:
    path = write_result_file(workspace, scores=scores(counts, (4, 5)))
    if use is not None:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for entry in doc["skills"].values():
            entry["usage"] = use
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


@pytest.mark.parametrize("at_base", [True, False])
def test_the_tokens_line_in_the_comment_check_run_and_job_summary(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], at_base: bool
) -> None:
    git(workspace, "init", "-q", "-b", "main")
    record(workspace, (5, 5), usage(980, 0.003) if at_base else None)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "base")
    base = git(workspace, "rev-parse", "HEAD")
    git(workspace, "checkout", "-qb", "pr")
    skill_md = workspace / "signup" / "skills" / "signup" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nOne more rule.\n", encoding="utf-8")
    record(workspace, (1, 5), usage(1240, 0.004))
    git(workspace, "commit", "-qam", "pr")
    ran = run_action(runner_env(workspace, fake, event_on(base)), capsys)
    assert ran.code == 0, ran.err
    where = "base: +980; this PR: +260" if at_base else "not recorded at base"
    cost = r" (+\$0.0010)" if at_base else ""
    line = f"Tokens: the skill adds +1,240 input tokens per answer ({where}) · cost +\\$0.0040 per answer{cost}"
    [comment] = fake.comments_on(PR)
    assert f"\n{line}\n" in str(comment["body"])
    [check] = fake.check_runs.values()
    assert line in check["output"]["summary"]
    assert line in ran.summary
