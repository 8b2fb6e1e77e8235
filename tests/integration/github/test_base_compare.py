"""The free comparison with the base branch (issue 19, item 2): a real git repository built here, the
base's committed result file read at the merge base, no model call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.integration.github.conftest import SCORES, write_result_file

from skill_be.engine import changes as cmp
from skill_be.engine.stats import newcombe
from skill_be.github.base import compare_with_base
from skill_be.project.loader import load_project

CONFIG = "skill-be.demo.yaml"
CRITERION = "Never writes the password to a log"  # the signup demo's criterion
TEST_LINE = SCORES[1]["line"]


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    import os

    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def scores(criterion: tuple[int, int], test: tuple[int, int]) -> list[dict[str, Any]]:
    a, b = json.loads(json.dumps(SCORES))
    a["line"] = CRITERION
    a["withSkill"] = {"passed": criterion[0], "total": criterion[1]}
    b["withSkill"] = {"passed": test[0], "total": test[1]}
    return [a, b]


def repo(workspace: Path, base_scores: list[dict[str, Any]] | None, base_has_skill: bool = True) -> str:
    """The signup demo committed on main with a result file; returns the base commit."""
    git(workspace, "init", "-q", "-b", "main")
    path = write_result_file(workspace, scores=base_scores)
    if not base_has_skill:
        path.write_text(json.dumps({"skillBeVersion": "0.1.0", "skills": {}}), encoding="utf-8")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "base")
    base = git(workspace, "rev-parse", "HEAD")
    git(workspace, "checkout", "-qb", "pr")
    return base


def project(workspace: Path) -> Any:
    return load_project(workspace / "signup" / CONFIG, warn=lambda _: None)


def commit_pr(workspace: Path, head_scores: list[dict[str, Any]], edit: Any = None) -> None:
    if edit is not None:
        edit(workspace / "signup")
    skill_md = workspace / "signup" / "skills" / "signup" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nOne more rule.\n", encoding="utf-8")
    write_result_file(workspace, scores=head_scores)
    git(workspace, "commit", "-qam", "pr")


def test_per_line_change_and_interval_match_a_hand_computation(workspace: Path) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)))
    commit_pr(workspace, scores((1, 5), (4, 5)))
    c = compare_with_base(project(workspace), workspace / "signup", base, "main")
    assert c.note == "" and c.base == base and c.label == f"main at {base[:7]} (merge base)"
    skill = c.skills["signup"]
    assert skill.status == cmp.SKILL_COMPARED
    lines = {x.line: x for x in skill.lines}
    crit = lines[CRITERION]
    assert crit.status == cmp.COMPARED and crit.base == (5, 5) and crit.head == (1, 5)
    assert crit.interval == newcombe(5, 5, 1, 5)  # head minus base
    assert crit.moved and round(crit.interval.estimate * 100) == -80
    same = lines[TEST_LINE]
    assert same.interval is not None and same.interval.estimate == 0 and not same.moved
    # overall against the base: the one scenario's mean change, (-80 + 0) / 2
    assert skill.vs_base is not None and round(skill.vs_base.estimate * 100) == -40
    assert skill.vs_baseline is not None


def test_a_changed_criterion_is_not_comparable(workspace: Path) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)))

    def reword(folder: Path) -> None:
        f = folder / "evals" / "signup.json"
        f.write_text(
            f.read_text(encoding="utf-8").replace("Never writes the password", "Never prints the password"), "utf-8"
        )

    head = scores((1, 5), (4, 5))
    head[0]["line"] = CRITERION.replace("Never writes the password", "Never prints the password")
    commit_pr(workspace, head, reword)
    skill = compare_with_base(project(workspace), workspace / "signup", base, "main").skills["signup"]
    lines = {x.line: x for x in skill.lines}
    assert lines[head[0]["line"]].status == cmp.NOT_COMPARABLE
    assert lines[head[0]["line"]].why == "its criteria changed"
    assert lines[TEST_LINE].status == cmp.COMPARED  # the tests did not change


def test_changed_tests_make_the_test_lines_not_comparable(workspace: Path) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)))

    def retest(folder: Path) -> None:
        for f in (folder / "skill-tests").rglob("*.ts"):
            f.write_text(f.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")

    commit_pr(workspace, scores((5, 5), (4, 5)), retest)
    lines = {
        x.line: x for x in compare_with_base(project(workspace), workspace / "signup", base).skills["signup"].lines
    }
    assert lines[TEST_LINE].status == cmp.NOT_COMPARABLE and lines[TEST_LINE].why == "its tests changed"
    assert lines[CRITERION].status == cmp.COMPARED


def test_a_base_without_scores_and_a_base_without_the_skill(workspace: Path) -> None:
    base = repo(workspace, None)  # the Node tool's result file: verdicts, no scores
    commit_pr(workspace, scores((1, 5), (4, 5)))
    skill = compare_with_base(project(workspace), workspace / "signup", base).skills["signup"]
    assert skill.status == cmp.SKILL_NO_SCORES and skill.vs_base is None and skill.base_ready is True


def test_a_base_that_does_not_have_the_skill(tmp_path: Path, workspace: Path) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)), base_has_skill=False)
    commit_pr(workspace, scores((1, 5), (4, 5)))
    skill = compare_with_base(project(workspace), workspace / "signup", base).skills["signup"]
    assert skill.status == cmp.SKILL_NEW and all(x.status == cmp.NEW for x in skill.lines)


def test_no_result_file_at_the_base_and_an_unknown_base(workspace: Path) -> None:
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "base")
    base = git(workspace, "rev-parse", "HEAD")
    write_result_file(workspace, scores=scores((1, 5), (4, 5)))
    c = compare_with_base(project(workspace), workspace / "signup", base, "main")
    assert c.skills == {} and c.note.startswith("no result file at main at ")
    unknown = compare_with_base(project(workspace), workspace / "signup", "f" * 40, "main")
    assert unknown.skills == {} and "could not be fetched" in unknown.note


def test_a_shallow_checkout_fetches_the_base(tmp_path: Path, workspace: Path) -> None:
    base = repo(workspace, scores((5, 5), (4, 5)))
    commit_pr(workspace, scores((1, 5), (4, 5)))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch=pr", f"file://{workspace}", str(clone))
    missing = subprocess.run(["git", "cat-file", "-e", base], cwd=clone, capture_output=True)
    assert missing.returncode != 0  # the checkout lacks the base: the comparison fetches it
    c = compare_with_base(project(clone), clone / "signup", base, "main")
    assert c.note == "" and c.skills["signup"].status == cmp.SKILL_COMPARED
    assert c.label == f"main at {base[:7]}"  # no merge base in a one-commit history: the base itself
