"""`skill-be run --base REF` (issue 19, item 4): after the run writes the result file, the comparison
with the one committed at REF's merge base, printed and shown as results.html's base column; the
result file's `usage` (tokens and cost of one answer per arm) and its line against the base."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.e2e.run.helpers import project, run

PRICES = {"m1": {"input": 3, "output": 15}, "judge": {"input": 1, "output": 5}}
# Passes "Uses allocate" with the skill: the answer names allocate only when the skill is in the prompt.
SKILLED = """
import sys
p = sys.stdin.read()
print("SKILLED allocate money" if "LIBRARY DOCS" in p else "plain answer")
"""


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_run_base_prints_the_comparison_and_the_page_gains_the_base_column(tmp_path: Path) -> None:
    root = project(tmp_path / "p", model=SKILLED, config={"pricing": PRICES})
    (root / ".gitignore").write_text(".skill-be/\n*.txt\n")
    git(root, "init", "-q", "-b", "main")
    first = run(root, "run")
    assert first.code == 0, first.stderr
    usage = first.result_file()["skills"]["money"]["usage"]
    # two reps per arm; the command adapter reports no tokens: characters / 4
    assert usage["baseline"]["answers"] == usage["withSkill"]["answers"] == 2 and usage["estimated"] is True
    assert usage["withSkill"]["inputTokens"] > usage["baseline"]["inputTokens"]  # the skill text is input
    assert usage["withSkill"]["costUsd"] > usage["baseline"]["costUsd"] > 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "pr")
    skill = root / "skills" / "money" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nAlways name allocate, and explain the rounding in detail.\n")
    done = run(root, "run", "--base", "main", "--html")
    assert done.code == 0, done.stderr
    sha = git(root, "rev-parse", "main")[:7]
    lines = done.stdout.splitlines()
    at = lines.index(f"Against main at {sha} (merge base), from the recorded scores (no model call):")
    assert lines[at + 1].startswith("  money: +0pp (")
    now = done.result_file()["skills"]["money"]["usage"]
    extra = now["withSkill"]["inputTokens"] - now["baseline"]["inputTokens"]
    before = usage["withSkill"]["inputTokens"] - usage["baseline"]["inputTokens"]
    assert extra > before  # the longer SKILL.md costs more input tokens
    assert lines[at + 2].startswith(
        f"    Tokens: the skill adds {round(extra):+,} input tokens per answer "
        f"(base: {round(before):+,}; this branch: {round(extra - before):+,}) · cost +$"
    )
    assert lines[at + 3].startswith('    ≈ split / m1 "Uses allocate" (critical): 100% (2/2) → 100% (2/2), +0pp')
    assert lines[at + 4] == "Skills:"  # then the closing lines, as always
    page = (done.run_dir() / "results.html").read_text()
    assert "<th>vs main" in page and '<td class="vs-base">' in page
    assert "100% → 100%, +0pp" in page
    # without --base: no comparison, no base column
    plain = run(root, "run", "--html")
    assert (
        "Against" not in plain.stdout and '<td class="vs-base">' not in (plain.run_dir() / "results.html").read_text()
    )


def test_run_base_with_a_ref_git_lacks_stops_before_any_call(tmp_path: Path) -> None:
    root = project(tmp_path / "p", model=SKILLED)
    git(root, "init", "-q", "-b", "main")
    done = run(root, "run", "--base", "nope")
    assert (done.code, done.stdout) == (2, "")
    assert done.stderr.startswith("skill-be: --base nope: git does not know nope in ")
    assert done.stderr.count("\n") == 1
    assert not (root / ".skill-be" / "results").exists()  # nothing ran
    assert json.dumps(done.stderr).count("fetch it first (git fetch origin nope)") == 1
