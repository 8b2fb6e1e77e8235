"""Annotations: 120 of them go in three requests (a create with 50, then updates with 50 and 20)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.github.conftest import REPO, TOKEN
from tests.support.fake_github import FakeGitHub

from skill_be.adapters.credentials import Redactor
from skill_be.github.client import Client
from skill_be.github.inputs import Context
from skill_be.github.publish import create_check_run
from skill_be.reports.pr_comment import GateView, ProblemView


def test_120_annotations_in_three_requests() -> None:
    problems = tuple(
        ProblemView(
            "typecheck", f"error TS2304: Cannot find name 'x{i}'.", "skills/money/SKILL.md", i + 1, "money", True
        )
        for i in range(120)
    )
    view = GateView(
        command="check", result="blocked", result_line="Result: blocked by the typecheck", problems=problems
    )
    ctx = Context(Path("."), REPO, "push", "a" * 40, None, False, "", "")
    with FakeGitHub(token=TOKEN, repository=REPO) as gh:
        client = Client(gh.url, TOKEN, Redactor([TOKEN]), max_wait=0.1)
        run_id = create_check_run(client, ctx, view, Redactor([TOKEN]), annotate=True)
        client.close()
        assert gh.violations == []
    writes = [(r.method, len(r.body["output"]["annotations"])) for r in gh.writes()]
    assert writes == [("POST", 50), ("PATCH", 50), ("PATCH", 20)]
    run = gh.check_runs[run_id]
    assert [a["start_line"] for a in run["annotations"]] == list(range(1, 121))
    assert run["conclusion"] == "failure" and run["output"]["title"] == "Result: blocked by the typecheck".removeprefix(
        "Result: "
    )
    assert {a["annotation_level"] for a in run["annotations"]} == {"failure"}
