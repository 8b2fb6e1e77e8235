"""`skill-be verify --base REF` (issue 19, item 2): this branch's committed result file against the one
at REF's merge base, read from a real git repository built here (a base commit on main, a PR commit),
with no model call; `gate.previous` and `gate.minDelta` decide the exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.unit.project.projectdir import ProjectDir

from skill_be.engine.changes import overall, reps_to_decide_line
from skill_be.engine.gate import signed_pp as pp
from skill_be.engine.stats import newcombe
from skill_be.project.loader import load_project
from skill_be.reports.pr_changes import effect_text
from skill_be.results.result_file import ArmCount, ResultEntry, Score, write_result_file

CRITERIA = ["Does it", "Says why"]
# The model and grader would leave this file behind if verify ever called them.
CALLED = "called.txt"


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def verify(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE")}
    argv = [sys.executable, "-m", "skill_be", "verify", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def scenario(criteria: list[str] = CRITERIA) -> dict[str, object]:
    return {"id": "a", "prompt": "Do it.", "criteria": criteria, "critical": True}


def record(p: ProjectDir, counts: dict[str, list[tuple[int, int]]], scores: bool = True, **extra: Any) -> None:
    """The result file as `run` writes it: per skill, each criterion's with-skill counts (baseline 1/5)."""
    project = load_project(p.config)
    entries = {}
    for s in project.skills:
        if s.name not in counts:
            continue
        crit = s.evals.scenarios[0].criteria
        lines = [
            Score(
                model="m",
                scenario="a",
                line=c,
                kind="criterion",
                critical=True,
                baseline=ArmCount(passed=1, total=5),
                withSkill=ArmCount(passed=k[0], total=k[1]),
            )
            for c, k in zip(crit, counts[s.name], strict=True)
        ]
        e = ResultEntry(
            date="2026-11-29",
            fingerprint=project.legacy_fingerprint(s),
            ready=True,
            reasons=[],
            models=["m"],
            grader="g",
            scores=lines if scores else None,
        )
        entries[s.name] = {**e, **extra}
    write_result_file(project.config.result_file, entries)


def commit(p: ProjectDir, message: str) -> None:
    git(p.root, "add", "-A")
    git(p.root, "commit", "-qm", message)


@pytest.fixture
def project(tmp_path: Path) -> ProjectDir:
    p = ProjectDir(tmp_path / "project")
    p.add_config("checks:\n  typecheck: false\n")
    for script in ("model.sh", "grader.sh"):
        p.write(script, f"#!/bin/sh\necho called >> {CALLED}\necho '{{}}'\n")
        (p.root / script).chmod(0o755)
    p.skill("money", [scenario()])
    p.skill("dates", [scenario()])
    git(p.root, "init", "-q", "-b", "main")
    return p


def base_then_pr(p: ProjectDir, base: dict[str, list[tuple[int, int]]], head: dict[str, list[tuple[int, int]]],
                 base_scores: bool = True) -> None:  # fmt: skip
    record(p, base, scores=base_scores)
    commit(p, "base")
    git(p.root, "checkout", "-qb", "pr")
    record(p, head)
    commit(p, "pr")


def out(done: subprocess.CompletedProcess[str]) -> list[str]:
    return done.stdout.splitlines()


def effect(arms: tuple[list[tuple[int, int]], list[tuple[int, int]]]) -> str:
    """A skill's overall change, against the base then against no skill (baseline 1/5 everywhere), by
    engine/changes.py's `overall`, checked against a hand computation in tests/unit/results."""
    before, after = arms
    vs_base = overall([("a", "m", b, h) for b, h in zip(before, after, strict=True)])
    vs_none = overall([("a", "m", (1, 5), h) for h in after])
    assert vs_base is not None and vs_none is not None
    return f"{effect_text(vs_base, True)} · vs no skill: {effect_text(vs_none, True)}"


def moved(before: tuple[int, int], after: tuple[int, int]) -> str:
    iv = newcombe(before[0], before[1], after[0], after[1])
    return f"{pp(iv.estimate)}pp ({pp(iv.low)} to {pp(iv.high)})"


def test_each_line_against_the_base_sorted_by_movement_with_no_model_call(project: ProjectDir) -> None:
    base_then_pr(project, {"money": [(5, 5), (4, 5)], "dates": [(3, 5), (3, 5)]},
                 {"money": [(1, 5), (4, 5)], "dates": [(3, 5), (5, 5)]})  # fmt: skip
    plain = verify(project.root)
    done = verify(project.root, "--base", "main")
    assert (done.returncode, done.stderr) == (0, "")  # gate.previous defaults to warn
    sha = git(project.root, "rev-parse", "main")[:7]
    lines = out(done)
    assert lines[:3] == out(plain)[:3]  # verify's usual lines come first, unchanged
    assert "Against" not in plain.stdout  # without --base: exactly what verify printed before
    says_why = newcombe(3, 5, 5, 5)
    assert lines[3:] == [
        f"Against main at {sha} (merge base), from the recorded scores (no model call):",
        f"  dates: {effect(([(3, 5), (3, 5)], [(3, 5), (5, 5)]))}",
        f'    ≈ a / m "Says why" (critical): 60% (3/5) → 100% (5/5), {moved((3, 5), (5, 5))}, within the noise; '
        f"about {reps_to_decide_line((3, 5), (5, 5))} reps per arm would decide it",
        f'    ≈ a / m "Does it" (critical): 60% (3/5) → 60% (3/5), {moved((3, 5), (3, 5))}, within the noise',
        f"  money: {effect(([(5, 5), (4, 5)], [(1, 5), (4, 5)]))}",
        # the line that moved most comes first, with ▼: its interval lies below 0
        f'    ▼ a / m "Does it" (critical): 100% (5/5) → 20% (1/5), {moved((5, 5), (1, 5))}',
        f'    ≈ a / m "Says why" (critical): 80% (4/5) → 80% (4/5), {moved((4, 5), (4, 5))}, within the noise',
        "Gate rules against the base:",
        '  money: warning: worse than the base: a / m — "Does it": 100% → 20% (-80pp) (gate.previous: warn)',
        "Result: pass",
    ]
    assert says_why.contains(0.0)
    # by hand: each skill's change is the mean of its lines' changes, (0 + 40) / 2 and (-80 + 0) / 2
    assert lines[4].startswith("  dates: +20pp (") and lines[7].startswith("  money: -40pp (")
    assert not (project.root / CALLED).exists()
    # control: the model script does leave its mark when it is run
    subprocess.run(["./model.sh"], cwd=project.root, capture_output=True, check=True)
    assert (project.root / CALLED).exists()


@pytest.mark.parametrize(
    ("gate", "code", "result"),
    [
        ("  previous: block\n", 1, "Result: blocked by gate.previous against the base (NOT READY: money)"),
        ("  previous: 'off'\n", 0, "Result: pass"),
        # the overall effects over no skill are +60 (dates) and +30 (money) points
        ("  previous: 'off'\n  minDelta: 40\n", 1, "Result: blocked by gate.minDelta against the base (NOT READY: money)"),
        ("  previous: 'off'\n  minDelta: 20\n", 0, "Result: pass"),
        ("  previous: block\n  minDelta: 40\n", 1,
         "Result: blocked by gate.previous and gate.minDelta against the base (NOT READY: money)"),
    ],
)  # fmt: skip
def test_gate_previous_and_min_delta_decide_the_exit_code(
    project: ProjectDir, gate: str, code: int, result: str
) -> None:
    project.add_config("gate:\n" + gate)
    base_then_pr(project, {"money": [(5, 5), (4, 5)], "dates": [(3, 5), (3, 5)]},
                 {"money": [(1, 5), (4, 5)], "dates": [(3, 5), (5, 5)]})  # fmt: skip
    done = verify(project.root, "--base", "main")
    assert (done.returncode, out(done)[-1]) == (code, result), done.stdout
    rules = out(done)[out(done).index("Gate rules against the base:") :] if code else []
    if "minDelta: 40" in gate:
        assert "  money: blocks: min delta: the overall effect over no skill is +30pp" in "\n".join(rules)
    assert verify(project.root).returncode == 0  # without --base the rules have nothing to read


def test_a_base_without_scores_a_base_without_the_skill_and_a_changed_criterion(project: ProjectDir) -> None:
    record(project, {"money": [(5, 5), (4, 5)]}, scores=False)  # the Node tool's file: verdicts only, no dates
    commit(project, "base")
    git(project.root, "checkout", "-qb", "pr")
    project.skill("dates", [scenario(["Does it", "Says why, briefly"])])  # a criterion reworded
    project.skill("taxes", [scenario()])  # a skill the base does not have
    record(project, {"money": [(1, 5), (4, 5)], "dates": [(3, 5), (5, 5)], "taxes": [(5, 5), (5, 5)]})
    commit(project, "pr")
    done = verify(project.root, "--base", "main", "--config", "skill-be.yaml")
    assert (done.returncode, done.stderr) == (0, "")
    lines = out(done)
    assert any(x.startswith("  money: no scores at base (verdict then: READY) · vs no skill: ") for x in lines)
    assert any(x.startswith("  taxes: new skill (the base does not have it) · vs no skill: +") for x in lines)
    assert any(x.startswith("  dates: new skill") for x in lines)  # the Node file did not record dates at all


def test_a_changed_criterion_is_not_comparable(project: ProjectDir) -> None:
    record(project, {"money": [(5, 5), (4, 5)], "dates": [(3, 5), (3, 5)]})
    commit(project, "base")
    git(project.root, "checkout", "-qb", "pr")
    project.skill("dates", [scenario(["Does it", "Says why, briefly"])])  # a criterion reworded
    record(project, {"money": [(5, 5), (4, 5)], "dates": [(3, 5), (5, 5)]})
    commit(project, "pr")
    lines = out(verify(project.root, "--base", "main"))
    at = next(i for i, x in enumerate(lines) if x.startswith("  dates: "))
    assert lines[at].startswith("  dates: no line comparable · vs no skill: +")
    # the grader saw other criteria: neither line of the scenario measures what it measured at the base
    assert lines[at + 1 : at + 3] == [
        '    - a / m "Does it" (critical): not comparable (its criteria changed): 60% (3/5) → 60% (3/5)',
        '    - a / m "Says why, briefly" (critical): not comparable (its criteria changed): – → 100% (5/5)',
    ]
    assert lines[at + 3].startswith("  money: +0pp (")  # unchanged skill: compared


@pytest.mark.parametrize("ref", ["no-such-branch", "0" * 40])
def test_a_ref_git_does_not_know_is_one_line_and_exit_2(project: ProjectDir, ref: str) -> None:
    base_then_pr(project, {"money": [(5, 5), (4, 5)]}, {"money": [(1, 5), (4, 5)]})
    done = verify(project.root, "--base", ref)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"skill-be: --base {ref}: git does not know {ref} in ")
    assert done.stderr.endswith(f"fetch it first (git fetch origin {ref}) or name a branch, tag or commit it has\n")


def test_outside_git_is_one_line_and_exit_2(tmp_path: Path) -> None:
    p = ProjectDir(tmp_path / "project")
    p.add_config("checks:\n  typecheck: false\n")
    p.skill("money", [scenario()])
    record(p, {"money": [(5, 5), (4, 5)]})
    done = subprocess.run(
        [sys.executable, "-m", "skill_be", "verify", "--base", "main"],
        cwd=p.root, capture_output=True, text=True, timeout=60,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)},
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"skill-be: --base main: {p.root} is not in a git repository; run it in a git checkout, or leave out --base\n"
    )


def usage(skill_tokens: float, cost: float) -> dict[str, Any]:
    arm = {"answers": 5, "inputTokens": 400.0, "outputTokens": 60.0, "costUsd": 0.002}
    skilled = {**arm, "inputTokens": 400.0 + skill_tokens, "costUsd": 0.002 + cost}
    return {"baseline": arm, "withSkill": skilled, "estimated": False}


@pytest.mark.parametrize("at_base", [True, False])
def test_tokens_and_cost_against_the_base(project: ProjectDir, at_base: bool) -> None:
    record(project, {"money": [(5, 5), (4, 5)]}, usage=usage(980, 0.003) if at_base else None)
    commit(project, "base")
    git(project.root, "checkout", "-qb", "pr")
    record(project, {"money": [(5, 5), (4, 5)]}, usage=usage(1240, 0.004))
    commit(project, "pr")
    lines = out(verify(project.root, "--base", "main"))
    where = "base: +980; this branch: +260" if at_base else "not recorded at base"
    cost = " (+$0.0010)" if at_base else ""
    assert lines[lines.index(next(x for x in lines if x.startswith("  money: "))) + 1] == (
        f"    Tokens: the skill adds +1,240 input tokens per answer ({where}) · cost +$0.0040 per answer{cost}"
    )
