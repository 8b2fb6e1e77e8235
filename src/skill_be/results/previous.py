"""The previous version of each skill, read from git, for `run --against REF`'s `previous` arm.

`materialise` writes each skill's folder, its eval file and its tests (with the shared tests folder
and the package list) as they were at REF into a temporary project that mirrors the repository's
layout, with **this** branch's config (the models, grader and settings under test stay the same;
only what the skill says differs). Loading that project gives the skills at REF; comparing their
fingerprints with this branch's says which skills are unchanged since REF: their with-skill answers
can serve as the previous arm's, and the engine need not call a model for them. A skill that did not
exist at REF has no previous arm, and says so.

No model is called and nothing of the work tree is touched: the files come from one `git ls-tree`
and one `git cat-file --batch`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.results.git_files import GitError, close_refs, git, read_at, resolve, toplevel

UNCHANGED, CHANGED, ABSENT = "unchanged", "changed", "absent"


class PreviousSkill(NamedTuple):
    name: str
    status: str  # unchanged | changed | absent (the skill did not exist at REF: no previous arm)
    skill: Any = None  # project.loader.Skill at REF, loaded from the temp project; None when absent


class Previous(NamedTuple):
    ref: str
    commit: str
    root: Path  # the temp project's repository top; remove it when the run is done
    skills: Mapping[str, PreviousSkill]


def _rel(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()


def _listed(root: Path, commit: str, folders: list[str]) -> list[str]:
    """Every file git held under `folders` at `commit` (paths from the repository's top)."""
    if not folders:
        return []
    out = git(root, "ls-tree", "-r", "-z", "--name-only", commit, "--", *folders)
    return [p for p in out.split("\0") if p]


def materialise(project: Any, ref: str, dest: Path) -> Previous:
    """Write the project's skills as they were at `ref` under `dest` and load them (module doc).
    GitError when git cannot answer or does not know `ref`."""
    cwd = Path(project.config.path).parent
    root = toplevel(cwd)
    commit = resolve(root, ref)
    if commit is None:
        raise GitError(
            f"{ref} is not a commit this repository has{close_refs(root, ref)}; fetch it first (git fetch origin {ref})"
        )
    config = project.config
    folders = [_rel(s.dir, root) for s in project.skills]
    files = [_rel(s.eval_path, root) for s in project.skills]
    if config.tests is not None:
        folders += [_rel(Path(config.tests) / s.name, root) for s in project.skills]
        folders.append(_rel(Path(config.tests) / "_shared", root))
    paths = [*_listed(root, commit, folders), *files]
    for rel, data in read_at(root, commit, paths).items():
        if data is not None:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    config_rel = _rel(Path(config.path), root)
    (dest / config_rel).parent.mkdir(parents=True, exist_ok=True)
    (dest / config_rel).write_bytes(Path(config.path).read_bytes())
    return Previous(ref, commit, dest, _load(project, dest / config_rel))


def _load(project: Any, config_path: Path) -> dict[str, PreviousSkill]:
    from skill_be.project.loader import load_project

    names = [s.name for s in project.skills]
    present = [n for n in names if _has_skill(config_path, project, n)]
    old = load_project(config_path, present, warn=lambda _line: None) if present else None
    by_name = {s.name: s for s in old.skills} if old is not None else {}
    out: dict[str, PreviousSkill] = {}
    for s in project.skills:
        then = by_name.get(s.name)
        if then is None:
            out[s.name] = PreviousSkill(s.name, ABSENT)
            continue
        same = old is not None and old.fingerprint(then) == project.fingerprint(s)
        out[s.name] = PreviousSkill(s.name, UNCHANGED if same else CHANGED, then)
    return out


def _has_skill(config_path: Path, project: Any, name: str) -> bool:
    """Whether REF had the skill: its SKILL.md and its eval file, at the same places as now."""
    s = next(x for x in project.skills if x.name == name)
    here = Path(project.config.path).parent
    there = config_path.parent
    return (there / os.path.relpath(s.skill_md, here)).is_file() and (
        there / os.path.relpath(s.eval_path, here)
    ).is_file()
