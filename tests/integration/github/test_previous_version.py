"""The git side of `run --against REF` (issue 19, item 1): each skill's folder, eval file and tests as
they were at REF, in a temp project with this branch's config; unchanged skills detected."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.integration.github.test_base_compare import git

from skill_be.project.loader import load_project
from skill_be.results.git_files import GitError
from skill_be.results.previous import ABSENT, CHANGED, UNCHANGED, materialise

ROOT = Path(__file__).resolve().parents[3]


def project_at(tmp: Path) -> tuple[Path, str]:
    """The signup demo with a second skill, committed; returns the repository and the base commit."""
    repo = tmp / "repo"
    shutil.copytree(ROOT / "examples" / "signup", repo, ignore=shutil.ignore_patterns(".skill-be"))
    shutil.copytree(repo / "skills" / "signup", repo / "skills" / "signin")
    md = repo / "skills" / "signin" / "SKILL.md"
    md.write_text(md.read_text(encoding="utf-8").replace("name: signup", "name: signin"), encoding="utf-8")
    shutil.copy(repo / "evals" / "signup.json", repo / "evals" / "signin.json")
    shutil.copytree(repo / "skill-tests" / "signup", repo / "skill-tests" / "signin")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo, git(repo, "rev-parse", "HEAD")


def test_changed_unchanged_and_absent_skills(tmp_path: Path) -> None:
    repo, base = project_at(tmp_path)
    old_text = (repo / "skills" / "signin" / "SKILL.md").read_text(encoding="utf-8")
    md = repo / "skills" / "signin" / "SKILL.md"
    md.write_text(old_text + "\nA new rule.\n", encoding="utf-8")
    shutil.copytree(repo / "skills" / "signup", repo / "skills" / "reset")  # a skill REF did not have
    (repo / "skills" / "reset" / "SKILL.md").write_text(old_text.replace("name: signin", "name: reset"), "utf-8")
    shutil.copy(repo / "evals" / "signup.json", repo / "evals" / "reset.json")
    shutil.copytree(repo / "skill-tests" / "signup", repo / "skill-tests" / "reset")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    project = load_project(repo / "skill-be.demo.yaml")
    prev = materialise(project, base, tmp_path / "previous")
    assert prev.commit == base
    assert {n: p.status for n, p in prev.skills.items()} == {"reset": ABSENT, "signin": CHANGED, "signup": UNCHANGED}
    then = prev.skills["signin"].skill
    assert then.doc.text == old_text  # the previous arm runs the old text
    assert then.skill_md.is_relative_to(tmp_path / "previous")
    assert set(then.test_files) == set(project.skills[1].test_files)  # its tests, as they were
    assert prev.skills["reset"].skill is None
    assert (repo / "skills" / "signin" / "SKILL.md").read_text(encoding="utf-8") == old_text + "\nA new rule.\n"


def test_a_changed_test_file_makes_the_skill_changed(tmp_path: Path) -> None:
    repo, base = project_at(tmp_path)
    test = repo / "skill-tests" / "signup" / "new-signup.test.ts"
    test.write_text(test.read_text(encoding="utf-8") + "\n// one more\n", encoding="utf-8")
    git(repo, "commit", "-qam", "pr")
    prev = materialise(load_project(repo / "skill-be.demo.yaml"), base, tmp_path / "previous")
    assert prev.skills["signup"].status == CHANGED and prev.skills["signin"].status == UNCHANGED


def test_an_unknown_ref_is_one_error(tmp_path: Path) -> None:
    repo, _ = project_at(tmp_path)
    with pytest.raises(GitError, match=r"^nope is not a commit this repository has; fetch it first"):
        materialise(load_project(repo / "skill-be.demo.yaml"), "nope", tmp_path / "previous")


def test_a_ref_close_to_a_branch_gets_its_did_you_mean(tmp_path: Path) -> None:
    repo, _ = project_at(tmp_path)
    git(repo, "branch", "release-1.2")
    with pytest.raises(
        GitError, match=r'^release-1\.3 is not a commit this repository has \(did you mean "release-1\.2"\?\)'
    ):
        materialise(load_project(repo / "skill-be.demo.yaml"), "release-1.3", tmp_path / "previous")
