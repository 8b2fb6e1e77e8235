"""Deterministic assertions and budgets: the models refuse what cannot be checked, the grading says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_be.engine.assertions import check, check_budget, first_block, line_names
from skill_be.errors import ConfigError
from skill_be.project.assertions import Assertion, Budget
from skill_be.project.evals import load_eval


def a(kind: str, value: object, **kw: object) -> Assertion:
    return Assertion(kind=kind, value=value, label=f"[assert] {kind}", **kw)  # type: ignore[arg-type]


ANSWER = 'Resolved 09:14-09:41 UTC.\n\n```json\n{"status": "ok", "count": 3}\n```\nNext: postmortem\n'


@pytest.mark.parametrize(
    ("assertion", "passed", "evidence"),
    [
        (a("contains", "Resolved"), True, "found at character 0"),
        (a("contains", "resolved"), False, "not found"),
        (a("contains", "resolved", ignore_case=True), True, "found"),
        (a("not_contains", "pay-gw"), True, "not found"),
        (a("not_contains", "Next:"), False, "found at"),
        (a("regex", r"^Next: \w+"), True, "matched 'Next: postmortem'"),
        (a("regex", r"^Ongoing"), False, "no match"),
        (a("equals", '{"status": "ok", "count": 3}', target="code"), True, "equal"),
        (a("equals", "ok"), False, "the answer is"),
        (a("max-length", 10), False, "characters (at most 10)"),
        (a("max-length", 1000), True, "characters (at most 1000)"),
        (a("json-schema", {"type": "object", "required": ["status"]}, target="code"), True, "valid"),
        (
            a("json-schema", {"type": "object", "properties": {"count": {"type": "string"}}}, target="code"),
            False,
            "at count:",
        ),
        (a("json-schema", {"type": "object"}), False, "not JSON"),
    ],
)
def test_each_kind_passes_and_fails_with_its_evidence(assertion: Assertion, passed: bool, evidence: str) -> None:
    got = check(assertion, ANSWER)
    assert got.passed is passed
    assert evidence in got.evidence


def test_a_code_target_without_a_block_fails_and_says_so() -> None:
    got = check(a("contains", "x", target="code"), "no code here")
    assert (got.passed, got.evidence) == (False, "the answer has no fenced code block")
    assert first_block("```ts\nconst x = 1\n```\n") == "const x = 1\n"


def test_a_budget_line_per_limit_and_an_unmeasured_limit_fails() -> None:
    budget = Budget(max_tokens=100, max_seconds=2.5)
    assert line_names((), budget) == ["[budget] tokens ≤ 100", "[budget] seconds ≤ 2.5"]
    ok, slow = check_budget(budget, tokens=80, cost_usd=None, seconds=3.0)
    assert (ok.passed, slow.passed) == (True, False)
    (unmeasured, _) = check_budget(budget, tokens=None, cost_usd=None, seconds=1.0)
    assert not unmeasured.passed and "not measured" in unmeasured.evidence


def write_eval(tmp_path: Path, scenario: dict[str, object], top: dict[str, object] | None = None) -> Path:
    path = tmp_path / "money.json"
    base = {"id": "split", "prompt": "Split 100 in three."}
    path.write_text(json.dumps({**(top or {}), "scenarios": [{**base, **scenario}]}, indent=2), encoding="utf-8")
    return path


def test_an_eval_file_with_assertions_alone_loads_and_the_skill_budget_fills_in(tmp_path: Path) -> None:
    path = write_eval(
        tmp_path,
        {"assertions": [{"type": "regex", "value": "\\d+"}], "budget": {"maxTokens": 500}},
        {"budget": {"maxSeconds": 30, "maxTokens": 9000}},
    )
    (sc,) = load_eval(path).scenarios
    assert sc.criteria == () and sc.assertions[0].label == '[assert] regex "\\d+"'
    assert sc.budget == Budget(max_tokens=500, max_seconds=30)


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (
            {"assertions": [{"type": "regex", "value": "(unclosed"}]},
            'money.json:9:20: scenarios[0] (id "split").assertions[0].value: is not a valid regular expression',
        ),
        (
            {"assertions": [{"type": "json-schema", "value": {"type": "objekt"}}]},
            "assertions[0].value: is not a valid JSON Schema at type:",
        ),
        ({"assertions": [{"type": "contain", "value": "x"}]}, 'unknown assertion type "contain" (did you mean'),
        ({"assertions": [{"type": "max-length", "value": "10"}]}, "max-length needs a positive whole number"),
        ({"budget": {}, "criteria": ["x"]}, "budget: sets no limit"),
        ({}, 'needs "criteria"'),
    ],
)
def test_an_assertion_that_cannot_be_checked_is_one_line_with_its_place(
    tmp_path: Path, scenario: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as e:
        load_eval(write_eval(tmp_path, scenario))
    assert message in str(e.value)
    assert "\n" not in str(e.value)
