"""The previous version of each skill, read from git, for `run --against REF`'s `previous` arm.

`materialise` writes each skill's folder, its eval file and its tests (with the shared tests folder
and the package list) as they were at REF into a temporary project that mirrors the repository's
layout, with **this** branch's config (the models, grader and settings under test stay the same;
only what the skill says differs). Loading that project gives the skills at REF; comparing their
fingerprints with this branch's says which skills are unchanged since REF: their with-skill answers
can serve as the previous arm's, and the engine need not call a model for them. A skill that did not
exist at REF has no previous arm, and says so.

No model is called and nothing of the work tree is touched: the files come from one `git ls-tree`
and one `git cat-file --batch` (results/git_files.py).

After each skill, its comparison (`previous_change`): this run's with-skill scores against the
previous arm's, line by line, in the same shape as the comparison with the base's committed result
file (results/base.py), so the same gate rule (`gate.previous`, engine/gate.py), tables and words serve
both. Counts come from this run's outputs, each line scored as the gate scores it (engine/gate.py
`score_lines`). What decides whether a line is comparable (`comparable`) is what decides it for the
base comparison: the scenario's prompt, its criteria, its output contract and its test file, at REF and
now. The previous arm is not run for lines that are not comparable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.engine.changes import NEW, SKILL_NEW, SkillChange
from skill_be.engine.gate import ScenarioLines, score_lines
from skill_be.engine.observations import Output
from skill_be.engine.prompts import BASELINE, PREVIOUS, WITH_SKILL
from skill_be.project.fingerprint import normalize
from skill_be.project.loader import Skill
from skill_be.results.base import SkillFiles, compare_skill, scenarios_now
from skill_be.results.git_files import GitError, close_refs, git, read_at, resolve, toplevel

UNCHANGED, CHANGED, ABSENT = "unchanged", "changed", "absent"


class PreviousSkill(NamedTuple):
    name: str
    status: str  # unchanged | changed | absent (the skill did not exist at REF: no previous arm)
    skill: Any = None  # project.loader.Skill at REF, loaded from the temp project; None when absent


class PreviousSkills(NamedTuple):
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


def materialise(project: Any, ref: str, dest: Path) -> PreviousSkills:
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
    return PreviousSkills(ref, commit, dest, _load(project, dest / config_rel))


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


_EVAL, _TESTS = "eval", "tests/"  # the names the comparison reads the old files by


def previous_change(
    skill: Skill,
    then: Skill | None,
    lines: Sequence[ScenarioLines],
    models: Sequence[str],
    outputs: Sequence[Output],
    ready: bool | None,
    ref: str,
) -> SkillChange:
    """The skill's lines: this run's with-skill counts against its previous arm's (module doc)."""
    head = _doc(_counts(lines, models, outputs, WITH_SKILL), ready)
    if then is None:
        change = compare_skill(skill.name, head, None, _files(skill), {})
        why = f"the skill did not exist at {ref}"
        return change._replace(status=SKILL_NEW, lines=tuple(x._replace(status=NEW, why=why) for x in change.lines))
    ran = {(o.scenario, o.model) for o in outputs if o.arm == PREVIOUS}
    before = [x for x in _counts(lines, models, outputs, PREVIOUS) if (x["scenario"], x["model"]) in ran]
    files: dict[str, bytes | None] = {_EVAL: _scenarios_json(then)}
    for sid, path in then.test_files.items():
        try:
            files[_TESTS + sid] = path.read_bytes()
        except OSError:
            files[_TESTS + sid] = None
    return compare_skill(skill.name, head, _doc(before, None), _files(skill), files)


def _counts(
    lines: Sequence[ScenarioLines], models: Sequence[str], outputs: Sequence[Output], arm: str
) -> list[dict[str, Any]]:
    """Each line's counts with `arm` in the with-skill place, as a result file's `scores` holds them."""
    out: list[dict[str, Any]] = []
    for sl in lines:
        for m in models:
            mine = [o for o in outputs if o.scenario == sl.scenario.id and o.model == m]
            shown = [o if o.arm == BASELINE else replace(o, arm=WITH_SKILL) for o in mine if o.arm in (BASELINE, arm)]
            for x in score_lines(sl, m, shown):
                if not x.counted and x.with_skill_total == 0:
                    continue
                out.append(
                    {
                        "model": x.model,
                        "scenario": x.scenario,
                        "line": x.line,
                        "kind": x.kind,
                        "critical": sl.scenario.critical,
                        "baseline": {"passed": x.baseline_passed, "total": x.baseline_total},
                        "withSkill": {"passed": x.with_skill_passed, "total": x.with_skill_total},
                    }
                )
    return out


def _doc(scores: list[dict[str, Any]], ready: bool | None) -> dict[str, Any]:
    return {"scores": scores, **({"ready": ready} if ready is not None else {})}


def _files(skill: Skill) -> SkillFiles:
    texts: dict[str, bytes] = {}
    for sid, path in skill.test_files.items():
        try:
            texts[sid] = path.read_bytes()
        except OSError:
            continue
    tests = {sid: _TESTS + sid for sid in skill.test_files}
    return SkillFiles(_EVAL, scenarios_now(skill.evals.scenarios), tests, texts)


def _scenarios_json(skill: Skill) -> bytes:
    """The old skill's scenarios, in the shape the comparison reads an eval file."""
    scenarios = [
        {"id": sid, "prompt": prompt, "criteria": list(criteria), "output": output}
        for sid, (prompt, criteria, output) in scenarios_now(skill.evals.scenarios).items()
    ]
    return json.dumps({"scenarios": scenarios}).encode("utf-8")


def comparable(skill: Skill, then: Skill) -> frozenset[str]:
    """The scenarios whose prompt, criteria, output contract and tests are as they were at REF: the
    ones the previous arm of a changed skill runs."""
    now, old = scenarios_now(skill.evals.scenarios), scenarios_now(then.evals.scenarios)
    out = set()
    for sid, spec in now.items():
        if old.get(sid) != spec:
            continue
        a, b = skill.test_files.get(sid), then.test_files.get(sid)
        if (a is None) != (b is None) or (a is not None and b is not None and _text(a) != _text(b)):
            continue
        out.add(sid)
    return frozenset(out)


def _text(path: Any) -> bytes | None:
    try:
        return normalize(path.read_bytes())  # LF-normalised, as fingerprints and the base comparison read tests
    except OSError:
        return None
