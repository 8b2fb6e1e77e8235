"""Assertions and budgets through `skill-be run`: lines graded without a model, in both arms, with
their evidence, and the gate deciding on them under both rules (issue 21)."""

from __future__ import annotations

import json

import pytest
from tests.e2e.run.helpers import COUNTED_MODEL, project, run, write

# The with-skill answers follow the format (a JSON block with "status"), the baseline's do not.
PLAN = {
    "base": ["Here you go: status ok"],
    "skill": ['Resolved.\n\n```json\n{"status": "ok"}\n```'],
}


def scenario(**extra: object) -> dict[str, object]:
    return {"id": "report", "critical": True, "prompt": "Report the status.", **extra}


ASSERTIONS = [
    {"type": "contains", "value": "Resolved"},
    {"type": "json-schema", "in": "code", "value": {"type": "object", "required": ["status"]}},
    {"type": "not_contains", "value": "status ok", "name": "no loose status"},
]


def test_assertions_are_lines_per_arm_with_evidence_and_no_model_call_grades_them(tmp_path):  # type: ignore[no-untyped-def]
    root = project(tmp_path, skills={"money": [scenario(assertions=ASSERTIONS)]}, model=COUNTED_MODEL)
    write(root / "plan.json", json.dumps(PLAN))
    r = run(root, "run")
    assert r.code == 0, r.stdout + r.stderr
    report = (r.run_dir() / "money.md").read_text()
    for line in ('[assert] contains "Resolved" | 0% | 100% | +100pp', "[assert] json-schema (code) | 0% | 100%"):
        assert line in report, report
    assert "[assert] no loose status | 0% | 100%" in report
    assert 'rep 1 baseline: \\[assert\\] contains "Resolved": not found' in report  # the evidence, quoted
    assert "the answer has no fenced code block" in report
    assert not (root / "grader-calls.log").exists()
    lines = {s["line"]: s for s in r.result_file()["skills"]["money"]["scores"]}
    assert lines['[assert] contains "Resolved"']["withSkill"] == {"passed": 2, "total": 2}


@pytest.mark.parametrize("rule", ["strict", "evidence"])
def test_an_assertion_that_the_skill_breaks_blocks_under_both_rules(tmp_path, rule: str) -> None:  # type: ignore[no-untyped-def]
    plan = {"base": PLAN["skill"], "skill": PLAN["base"]}  # the skill makes the format worse
    root = project(
        tmp_path,
        skills={"money": [scenario(assertions=ASSERTIONS[:1])]},
        model=COUNTED_MODEL,
        config={"reps": 10, "gate": {"rule": rule}},
    )
    write(root / "plan.json", json.dumps(plan))
    r = run(root, "run")
    assert r.code == 1, r.stdout + r.stderr
    assert "**NOT READY**" in r.stdout
    assert '[assert] contains "Resolved"' in r.stdout


def test_a_budget_limit_is_a_line_and_an_unmeasured_one_fails_with_its_reason(tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = project(
        tmp_path,
        skills={"money": [scenario(assertions=ASSERTIONS[:1], budget={"maxSeconds": 120, "maxTokens": 50})]},
        model=COUNTED_MODEL,
    )
    write(root / "plan.json", json.dumps(PLAN))
    r = run(root, "run")
    report = (r.run_dir() / "money.md").read_text()
    assert "[budget] seconds ≤ 120 | 100% | 100% | +0pp" in report, report
    assert "[budget] tokens ≤ 50 | 0% | 0%" in report  # the command adapter reports no tokens
    assert "\\[budget\\] tokens ≤ 50: not measured: the adapter reported no tokens" in report
    assert r.code == 1  # a line at 0% in both arms: universal 0% blocks


def test_an_invalid_json_schema_stops_before_any_call(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = [{"type": "json-schema", "value": {"type": "objekt"}}]
    root = project(tmp_path, skills={"money": [scenario(assertions=bad)]}, model=COUNTED_MODEL)
    write(root / "plan.json", json.dumps(PLAN))
    r = run(root, "run")
    assert r.code == 2
    (line,) = r.stderr.strip().splitlines()
    assert "evals/money.json:" in line and "assertions[0].value: is not a valid JSON Schema at type:" in line
    assert not (root / "calls-base.txt").exists() and not (root / "calls-skill.txt").exists()
