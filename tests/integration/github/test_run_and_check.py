"""`command: run` on the signup demo (code tests in Docker sandboxes), and `command: check` on the
durations demo with a broken SKILL.md example: the typecheck problem is annotated at its line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.integration.github.conftest import ROOT, pull_request_event, run_action, runner_env
from tests.support.fake_github import FakeGitHub

PR = pull_request_event()["number"]


def test_run_comments_deltas_and_points_at_the_run_folder(
    workspace: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = run_action(runner_env(workspace, fake, command="run"), capsys)
    assert ran.code == 0, ran.out + ran.err
    assert ran.warnings() == []
    summary_json = workspace / ran.outputs["summary-json"]
    assert summary_json.name == "summary.json" and summary_json.is_file()
    assert ran.outputs["report"] == ran.outputs["summary-json"].replace("summary.json", "action-report.md")
    assert ran.outputs["result"] == "pass" and ran.outputs["ready"] == "true"
    (c,) = fake.comments_on(PR)
    body = c["body"]
    assert "skill-be run in `signup`: pass" in body
    assert "Models: `demo-model` · Reps: 2 · Tokens: baseline (estimated) " in body
    assert (
        "| ▲ | new-signup *(critical)* | [test] answers 409 and saves nobody when the email is taken | 0% (0/2) | 100% (2/2) | +100pp (+7 to +100) |"
        in body
    )
    # The job summary has the gate report and then the skill's own report.
    assert "## Release Gate" in ran.summary and body.split("\n", 1)[1] in ran.summary
    (run,) = fake.check_runs.values()
    assert run["conclusion"] == "success" and run["output"]["title"] == "READY: 1 skill(s)"
    # And the result file now records the scores that verify shows later.
    recorded = json.loads((workspace / "signup" / ".skill-be" / "demo.result.json").read_text(encoding="utf-8"))
    assert recorded["skills"]["signup"]["ready"] is True


def test_check_annotates_a_typecheck_problem_at_its_skill_md_line(
    tmp_path: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "workspace"
    shutil.copytree(ROOT / "examples" / "durations", ws, ignore=shutil.ignore_patterns(".skill-be", "node_modules"))
    skill_md = next((ws / "skills").glob("*/SKILL.md"))
    lines = skill_md.read_text(encoding="utf-8").split("\n")
    fence = next(i for i, line in enumerate(lines) if line.startswith("```ts"))
    lines.insert(fence + 2, "const broken: number = Duration.parse(1, 2, 3);")  # after the import
    skill_md.write_text("\n".join(lines), encoding="utf-8")
    env = runner_env(ws, fake, command="check", working_directory=".", args="--config skill-be.yaml")
    ran = run_action(env, capsys)
    assert ran.code == 1, ran.out + ran.err
    assert "\nResult: blocked by the typecheck\n" in ran.out
    (run,) = fake.check_runs.values()
    assert run["name"] == "skill-be" and run["conclusion"] == "failure"
    notes = [a for a in run["annotations"] if "TS2554" in a["message"]]
    assert notes, run["annotations"]
    assert notes[0]["path"] == skill_md.relative_to(ws).as_posix()
    assert notes[0]["start_line"] == fence + 3
    assert notes[0]["annotation_level"] == "failure"
