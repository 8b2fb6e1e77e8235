"""What the base comparison adds to the action's `verify` on a pull request, on a 20-skill project.

    python bench/pr_compare.py [--reps 10] [--skills 20]

Builds a git repository in a temp folder: a base commit with 20 skills and their result file (with
scores), then a pull-request commit that changes one skill's SKILL.md and its scores. Times the
action (`python -m skill_be.github`, comment and check run off, so no API is called) running
`verify` as on a push (no base) and as on a pull request (the base commit in the event file, so it
reads the base's result file and every eval file and test at the merge base through git), interleaved
so machine load hits both alike. Prints the medians and the difference; the target is at most 1.5 s
more with the comparison (git reads included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _shared import COMMAND_CONFIG  # bench/_shared.py (this folder is on sys.path when a benchmark runs)

TARGET_EXTRA_S = 1.5


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def write_result(root: Path, changed: str | None) -> None:
    from skill_be.project.loader import load_project

    project = load_project(root / "skill-be.yaml")
    skills = {}
    for s in project.skills:
        scores = []
        for sc in s.evals.scenarios:
            for line in sc.criteria:
                passed = 1 if s.name == changed else 4
                scores.append(
                    {
                        "model": "model-a",
                        "scenario": sc.id,
                        "line": line,
                        "kind": "criterion",
                        "critical": sc.critical,
                        "baseline": {"passed": 1, "total": 5},
                        "withSkill": {"passed": passed, "total": 5},
                    }
                )
        skills[s.name] = {"date": "2026-12-01", "fingerprint": project.fingerprint(s), "ready": True, "reasons": [],
                          "models": ["model-a"], "grader": "grader-a", "scores": scores}  # fmt: skip
    (root / "skill-be.result.json").write_text(json.dumps({"skillBeVersion": "0.1.0", "skills": skills}, indent=2))


def build(root: Path, n: int) -> str:
    (root / "skill-be.yaml").write_text(COMMAND_CONFIG, encoding="utf-8")
    for i in range(n):
        name = f"skill-{i:02d}"
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Skill {i}.\n---\nDo it.\n")
        (root / "evals").mkdir(exist_ok=True)
        scenarios = [{"id": f"t{j}", "prompt": f"Task {j}.", "critical": j == 0, "criteria": ["Works", "Short"]}
                     for j in range(6)]  # fmt: skip
        (root / "evals" / f"{name}.json").write_text(json.dumps({"skill": name, "scenarios": scenarios}))
    git(root, "init", "-q", "-b", "main")
    write_result(root, None)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-qb", "pr")
    md = root / "skills" / "skill-00" / "SKILL.md"
    md.write_text(md.read_text() + "One more rule.\n")
    write_result(root, "skill-00")
    git(root, "commit", "-qam", "pr")
    return base


def action(root: Path, base: str | None) -> float:
    tmp = root.parent
    event = (
        {"pull_request": {"number": 1, "head": {"sha": "0" * 40}, "base": {"sha": base, "ref": "main"}}} if base else {}
    )
    (tmp / "event.json").write_text(json.dumps(event))
    env = {
        **os.environ,
        "GITHUB_WORKSPACE": str(root),
        "GITHUB_EVENT_PATH": str(tmp / "event.json"),
        "GITHUB_EVENT_NAME": "pull_request" if base else "push",
        "GITHUB_OUTPUT": str(tmp / "out.txt"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "INPUT_COMMAND": "verify",
        "INPUT_COMMENT": "false",
        "INPUT_CHECK-RUN": "false",
    }
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "skill_be.github"], cwd=root, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"the action failed: {done.stderr[-2000:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--skills", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        base = build(root, args.skills)
        summary = root.parent / "summary.md"
        plain, compared = [], []
        for _ in range(args.reps):
            plain.append(action(root, None))
            compared.append(action(root, base))
        if "vs main" not in summary.read_text():
            raise SystemExit("the pull-request run shows no comparison with the base")
    a, b = statistics.median(plain), statistics.median(compared)
    print(f"verify, {args.skills} skills, median of {args.reps}:")
    print(f"  the action without a base:        {a:.3f} s")
    print(f"  the action with the base compared: {b:.3f} s  (+{b - a:.3f} s; target at most +{TARGET_EXTRA_S} s)")
    return 0 if b - a <= TARGET_EXTRA_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
