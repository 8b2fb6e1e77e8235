"""The gate's rules end to end, with scripted models whose answers pass at known rates: the n-th call
in each arm gets the n-th answer of that arm's list (a counter file under a lock)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.run.helpers import COUNTED_MODEL, project, run

from skill_be.reports import strings as s

# The grader passes "Uses alpha" when the answer says alpha, and so on.
SCENARIO = {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses alpha", "Uses beta"]}
BOTH, NONE = "alpha beta", "nothing"


def counted_project(root: Path, base: list[str], skill: list[str], **config: object) -> Path:
    project(root, skills={"money": [SCENARIO]}, model=COUNTED_MODEL, config={"reps": 5, **config})
    (root / "plan.json").write_text(json.dumps({"base": base, "skill": skill}))
    return root


def calls(root: Path) -> int:
    return sum(len((root / f"calls-{arm}.txt").read_text().splitlines()) for arm in ("base", "skill"))


# Harmless: 3 of 5 baseline answers pass both lines, 2 of 5 with the skill. The reference's rule
# blocks on the 60% -> 40% drop; its 95% interval holds 0.
HARMLESS_BASE = [BOTH, BOTH, BOTH, NONE, NONE]
HARMLESS_SKILL = [BOTH, BOTH, NONE, NONE, NONE]


def test_harmless_skill_is_blocked_by_strict_with_the_noise_note(tmp_path: Path) -> None:
    root = counted_project(tmp_path, HARMLESS_BASE, HARMLESS_SKILL)
    r = run(root, "run")
    assert r.code == 1, r.stderr
    regression = s.BLOCKED_REGRESSION.format(
        scenario="split", model="m1", line="Uses alpha", baseline=60, with_skill=40, delta="-20"
    )
    lines = r.stdout.splitlines()
    at = lines.index(regression)
    assert lines[at + 1].startswith("  - Within the noise: the 95% interval of this delta, ")
    assert "contains 0; 5 reps per arm cannot tell; about " in lines[at + 1] and " would: run --reps " in lines[at + 1]
    assert s.NOT_READY_LINE in lines
    # the intervals are in the report, summary.json and the result file records the rule
    assert "95% intervals of the deltas (5 reps per arm, low sample):" in lines
    summary = r.summary()["skills"]["money"]
    assert summary["gate"]["rule"] == "strict"
    assert summary["gate"]["noise"][0]["line"] == "Uses alpha"
    m = summary["scenarios"][0]["models"]["m1"]
    assert m["lines"][0]["counts"] == {"baseline": [3, 5], "withSkill": [2, 5]}
    assert m["pooled"]["effect"] == "no clear difference" and m["pooled"]["lowSample"] is True
    assert summary["effect"]["label"] == "no clear difference"
    assert calls(root) == 10


def test_harmless_skill_is_not_blocked_by_evidence(tmp_path: Path) -> None:
    root = counted_project(tmp_path, HARMLESS_BASE, HARMLESS_SKILL, gate={"rule": "evidence"})
    r = run(root, "run")
    assert r.code == 0, r.stdout + r.stderr
    assert "**INCONCLUSIVE**: `split` / m1 — the scenario's mean delta: -20pp" in r.stdout
    assert s.INCONCLUSIVE_PASSES in r.stdout
    assert r.stdout.count(s.READY_LINE) == 1 and "BLOCKED" not in r.stdout
    gate = r.summary()["skills"]["money"]["gate"]
    assert gate["rule"] == "evidence" and gate["looks"] == 1 and gate["blocks"] == []
    assert gate["inconclusive"] and not gate["inconclusiveBlocks"]
    entry = r.result_file()["skills"]["money"]
    assert entry["ready"] is True
    # the result file records which rule and levels decided
    assert entry["gate"]["rule"] == "evidence" and entry["gate"]["scenarioLevel"] == 0.04


def test_inconclusive_block_setting_blocks_it(tmp_path: Path) -> None:
    root = counted_project(tmp_path, HARMLESS_BASE, HARMLESS_SKILL, gate={"rule": "evidence", "inconclusive": "block"})
    r = run(root, "run")
    assert r.code == 1
    assert s.INCONCLUSIVE_BLOCKS in r.stdout
    reasons = r.result_file()["skills"]["money"]["reasons"]
    assert any(x.startswith("inconclusive: split / m1") for x in reasons)


def test_harmful_skill_is_blocked_by_both_rules(tmp_path: Path) -> None:
    for rule in ("strict", "evidence"):
        root = counted_project(tmp_path / rule, [BOTH], [NONE], gate={"rule": rule})
        r = run(root, "run")
        assert r.code == 1, (rule, r.stdout)
        if rule == "strict":
            assert '- **BLOCKED** (regression): `split` / m1 — *"Uses alpha"*: 100% → 0% (-100pp)' in r.stdout
            assert "Within the noise" not in r.stdout  # -100pp at 5 reps is not noise
        else:
            assert "- **BLOCKED** (regression, evidence): `split` / m1 — the scenario's mean delta -100pp" in r.stdout
            gate = r.summary()["skills"]["money"]["gate"]
            assert {b["line"] for b in gate["blocks"]} == {None, "Uses alpha", "Uses beta"}
        assert r.summary()["skills"]["money"]["effect"]["label"] == "worse"


def test_top_up_makes_the_calls_it_announces_and_no_more(tmp_path: Path) -> None:
    root = counted_project(
        tmp_path, [BOTH, BOTH, NONE], [BOTH, NONE, NONE], reps=3, gate={"rule": "evidence", "topUpReps": 7}
    )
    r = run(root, "run", "--top-up")
    assert r.code == 0, r.stdout + r.stderr
    announced = "Top-up: `split` / m1 from 3 to 7 reps per arm (8 more model calls)."
    assert announced in r.stdout
    assert calls(root) == 2 * 3 + 8
    assert sorted(p.name for p in (r.run_dir() / "money" / "split" / "m1").glob("rep-*-baseline.md")) == [
        f"rep-{i}-baseline.md" for i in range(1, 8)
    ]
    gate = r.summary()["skills"]["money"]["gate"]
    assert gate["looks"] == 2 and gate["look"] == 2
    assert r.result_file()["skills"]["money"]["gate"]["look"] == 2
    assert gate["topUp"] == [{"scenario": "split", "model": "m1", "from": 3, "to": 7}]
    m = r.summary()["skills"]["money"]["scenarios"][0]["models"]["m1"]
    assert m["lines"][0]["counts"]["baseline"][1] == 7 and len(m["outputs"]) == 14


def test_without_top_up_nothing_more_is_called(tmp_path: Path) -> None:
    root = counted_project(
        tmp_path, [BOTH, BOTH, NONE], [BOTH, NONE, NONE], reps=3, gate={"rule": "evidence", "topUpReps": 7}
    )
    r = run(root, "run")
    assert r.code == 0 and calls(root) == 6 and "Top-up" not in r.stdout


def test_top_up_under_strict_is_a_usage_error(tmp_path: Path) -> None:
    root = counted_project(tmp_path, [BOTH], [BOTH])
    r = run(root, "run", "--top-up")
    assert r.code == 2
    assert r.stderr.splitlines()[0] == (
        "skill-be: --top-up: tops up what the evidence rule finds inconclusive, but skill-be.yaml has "
        "gate.rule: strict; set gate.rule: evidence there, or drop --top-up"
    )
    assert "Traceback" not in r.stderr and not (root / "calls-base.txt").exists()
