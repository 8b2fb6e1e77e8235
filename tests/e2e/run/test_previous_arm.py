"""`run --against REF`: the previous version of each skill as a third arm (issue 19, item 1), through
the real CLI on a real git repository: a base commit, a commit that changes one skill's SKILL.md, one
that changes a criterion, one that adds a skill. The scripted model answers by which version of the
skill its prompt carries and counts its calls per version, so the test sees which arm called what."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest
from tests.e2e.run.helpers import Result, project, run, write

# Answers by the skill text in the prompt; each version's n-th call gets its n-th answer, counted
# in calls-<version>.txt under a lock.
MODEL = """
import fcntl, json, sys
p = sys.stdin.read()
version = next((v for v in ("OLD", "NEW", "STABLE", "FRESH") if f"VERSION-{v}" in p), "BASE")
plan = json.load(open("plan.json"))
with open(f"calls-{version}.txt", "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    n = len(f.read().splitlines())
    f.write("call\\n")
answers = plan.get(version, ["plain answer"])
print(answers[n % len(answers)])
"""
REPS = 4
SCENARIOS = [
    {"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate"]},
    {"id": "round", "critical": False, "prompt": "Round a total.", "criteria": ["Uses allocate"]},
]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def skill(root: Path, name: str, version: str) -> None:
    write(root / "skills" / name / "SKILL.md", f"---\nname: {name}\ndescription: {name}.\n---\nVERSION-{version}\n")


def repository(root: Path, gate: dict[str, object] | None = None) -> str:
    """The base commit: `money` (old text) and `stable`; then this branch: money's new text, a changed
    criterion in money's `round`, and a new skill `fresh`. Returns the base commit."""
    config: dict[str, object] = {"reps": REPS, **({"gate": gate} if gate else {})}
    project(root, skills={"money": SCENARIOS, "stable": SCENARIOS[:1]}, model=MODEL, config=config)
    skill(root, "money", "OLD")
    skill(root, "stable", "STABLE")
    write(root / ".gitignore", ".skill-be/\ncalls-*.txt\nplan.json\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD")
    skill(root, "money", "NEW")
    git(root, "commit", "-qam", "money: new text")
    evals = json.loads((root / "evals" / "money.json").read_text())
    evals["scenarios"][1]["criteria"] = ["Uses rounding"]
    write(root / "evals" / "money.json", json.dumps(evals))
    skill(root, "fresh", "FRESH")
    write(root / "evals" / "fresh.json", json.dumps({"scenarios": SCENARIOS[:1]}))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "money: a criterion changes; fresh is new")
    return base


def calls(root: Path, version: str) -> int:
    f = root / f"calls-{version}.txt"
    return len(f.read_text().splitlines()) if f.exists() else 0


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def newcombe_by_hand(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """Newcombe's hybrid score interval (method 10) of p2 - p1, from the two Wilson intervals."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p2 - p1
    return d, d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)


@pytest.fixture(scope="module")
def against(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, str]:
    root = tmp_path_factory.mktemp("against")
    base = repository(root)
    # money: the new text passes `split` 4 times in 4, the old one once in 4
    plan = {"NEW": ["allocate rounding"], "OLD": ["allocate", "no", "no", "no"], "STABLE": ["allocate"]}
    write(root / "plan.json", json.dumps({**plan, "FRESH": ["allocate"]}))
    return run(root, "run", "--against", base[:10]), base


def test_the_previous_arm_runs_the_old_text_only_where_it_can_compare(against: tuple[Result, str]) -> None:
    r, _ = against
    assert r.code == 0, r.stdout + r.stderr
    # money's old text: `split` only (`round`'s criterion changed), REPS times; stable reuses its
    # with-skill answers (no call with its text beyond its own arm); fresh has no previous arm
    assert calls(r.root, "OLD") == REPS
    assert calls(r.root, "NEW") == 2 * REPS
    assert calls(r.root, "STABLE") == REPS
    assert calls(r.root, "FRESH") == REPS
    assert "money: changed since" in r.stdout and "the previous arm runs 1 of 2 scenario(s)" in r.stdout


def test_its_deltas_and_intervals_match_a_hand_computation(against: tuple[Result, str]) -> None:
    r, base = against
    doc = r.summary()["skills"]["money"]["previous"]
    assert doc["commit"] == base and doc["answers"] == {"made": REPS, "reused": 0}
    by_scenario = {x["scenario"]: x for x in doc["lines"]}
    split = by_scenario["split"]
    assert split["withSkill"] == {"passed": 4, "total": 4} and split["previous"] == {"passed": 1, "total": 4}
    d, low, high = newcombe_by_hand(1, 4, 4, 4)
    iv = split["interval"]
    assert (iv["estimate"], iv["low"], iv["high"]) == pytest.approx((d, low, high), abs=1e-9)
    assert by_scenario["round"]["status"] == "not comparable" and by_scenario["round"]["why"] == "its criteria changed"
    report = (r.run_dir() / "money.md").read_text()
    row = f"| 25% (1/4) | 100% (4/4) | +75pp ({round(low * 100):+d} to {round(high * 100):+d})"
    assert "## Against the previous version" in report and row in report, report
    assert "not comparable: its criteria changed" in report


def test_an_unchanged_skill_reuses_and_a_new_one_says_it_has_none(against: tuple[Result, str]) -> None:
    r, base = against
    stable = (r.run_dir() / "stable.md").read_text()
    assert f"({REPS} reused, no model call)" in stable
    assert r.summary()["skills"]["stable"]["previous"]["answers"] == {"made": 0, "reused": REPS}
    fresh = (r.run_dir() / "fresh.md").read_text()
    assert f"No previous arm: the skill did not exist at {base[:7]}." in fresh


def test_gate_previous_block_makes_a_worse_critical_line_not_ready(tmp_path: Path) -> None:
    base = repository(tmp_path, gate={"previous": "block"})
    # the new text now passes `split` once in 4, the old one every time: worse than the previous version
    plan = {"NEW": ["allocate rounding", "rounding", "rounding", "rounding"], "OLD": ["allocate"]}
    write(tmp_path / "plan.json", json.dumps(plan))
    r = run(tmp_path, "run", "money", "--against", base)
    assert r.code == 1, r.stdout + r.stderr
    [reason] = r.result_file()["skills"]["money"]["reasons"]
    assert reason.startswith(f'worse than the previous version ({base[:7]}): split / m1 — "Uses allocate": 100% → 25%')
    # the control: the same run under gate.previous: warn is READY and shows the warning
    config = tmp_path / "skill-be.yaml"
    config.write_text(config.read_text().replace("previous: block", "previous: warn"))
    r = run(tmp_path, "run", "money", "--against", base)
    assert r.code == 0, r.stdout + r.stderr
    assert "Warning (gate.previous): worse than the previous version" in (r.run_dir() / "money.md").read_text()


def test_a_ref_git_does_not_know_is_one_line_and_exit_2(tmp_path: Path) -> None:
    repository(tmp_path)
    r = run(tmp_path, "run", "--against", "no-such-branch")
    assert r.code == 2
    line, usage = r.stderr.strip().splitlines()
    assert usage.startswith("Usage: skill-be run")
    assert "run --against no-such-branch" in line and "git fetch origin no-such-branch" in line
    assert calls(tmp_path, "NEW") == 0  # checked before any call


def test_a_cache_kept_from_the_base_answers_the_previous_arm(tmp_path: Path) -> None:
    """The previous arm's calls are the with-skill calls of a run at REF: a cache kept from a run
    there (actions/cache restored from the base branch) answers them all."""
    base = repository(tmp_path)
    head = git(tmp_path, "rev-parse", "HEAD")
    plan = {"NEW": ["allocate rounding"], "OLD": ["allocate", "no", "no", "no"], "STABLE": ["allocate"]}
    write(tmp_path / "plan.json", json.dumps({**plan, "FRESH": ["allocate"]}))
    git(tmp_path, "checkout", "-q", base)
    assert run(tmp_path, "run", "money", "--cache").code == 0
    at_base = calls(tmp_path, "OLD")
    assert at_base == 2 * REPS  # both scenarios, with the old text, on the base branch
    git(tmp_path, "checkout", "-q", head)
    r = run(tmp_path, "run", "money", "--cache", "--against", base)
    assert r.code == 0, r.stdout + r.stderr
    assert calls(tmp_path, "OLD") == at_base  # the previous arm: every answer from the cache
    assert r.summary()["skills"]["money"]["previous"]["answers"]["made"] == REPS
    # the control: without the cache the previous arm calls the model
    r = run(tmp_path, "run", "money", "--against", base)
    assert calls(tmp_path, "OLD") == at_base + REPS
