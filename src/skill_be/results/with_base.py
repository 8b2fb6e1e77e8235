"""The free comparison of a loaded project with a base commit: which files each skill's lines depend
on (`skill_files`), and the comparison of the project's result file with the base's
(`compare_with_base`, for the action: git's failures become a note; `comparison_at`, for `verify
--base` and `run --base`: a ref git cannot resolve is the user's mistake, one line and exit 2).
No model is called; git is read through results/git_files.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skill_be.errors import SkillBeError
from skill_be.results.compare import Comparison, SkillFiles, compare, scenarios_now
from skill_be.results.git_files import Base, GitError, close_refs, find_base, toplevel


def _rel(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()


def skill_files(project: Any, root: Path) -> dict[str, SkillFiles]:
    """Each skill's eval file, scenarios and test files, as the comparison reads them."""
    out: dict[str, SkillFiles] = {}
    for s in project.skills:
        tests = {sid: _rel(p, root) for sid, p in s.test_files.items()}
        texts: dict[str, bytes] = {}
        for sid, p in s.test_files.items():
            try:
                texts[sid] = Path(p).read_bytes()
            except OSError:
                continue
        out[s.name] = SkillFiles(_rel(s.eval_path, root), scenarios_now(s.evals.scenarios), tests, texts)
    return out


def compare_project(project: Any, root: Path, base: Base) -> Comparison:
    """The project's result file (as it is on disk) against the base's, at `base`."""
    result_file = Path(project.config.result_file)
    try:
        head_doc = json.loads(result_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        head_doc = None
    return compare(root, base, _rel(result_file, root), head_doc, skill_files(project, root))


def compare_with_base(project: Any, cwd: Path, ref: str, name: str = "") -> Comparison:
    """The comparison of the project's committed result file with the base's; a Comparison with only
    a note when git or the base cannot answer."""
    try:
        root = toplevel(cwd)
    except GitError as e:
        return Comparison("", name or ref, {}, f"no comparison with the base: {e}")
    found = find_base(root, ref, name=name)
    if isinstance(found, GitError):
        return Comparison("", name or ref, {}, f"no comparison with the base: {found}")
    return compare_project(project, root, found)


def resolve_base(project: Any, ref: str, option: str = "--base") -> tuple[Path, Base]:
    """`--base REF` on the command line: the repository's top and the merge base of HEAD with REF. A
    folder outside git, or a REF git does not have and cannot fetch, stops the command (exit 2, one
    line), before anything runs."""
    folder = Path(project.config.root)
    if not ref.strip() or ref.startswith("-"):
        raise SkillBeError(f'{option}: needs a branch, tag or commit, such as {option} main, not "{ref}"')
    try:
        root = toplevel(folder)
    except GitError:
        raise SkillBeError(
            f"{option} {ref}: {folder} is not in a git repository; run it in a git checkout, or leave out {option}"
        ) from None
    found = find_base(root, ref)
    if isinstance(found, GitError):
        raise SkillBeError(
            f"{option} {ref}: git does not know {ref} in {root} and could not fetch it{close_refs(root, ref)}; "
            f"fetch it first (git fetch origin {ref}) or name a branch, tag or commit it has"
        )
    return root, found


def comparison_at(project: Any, ref: str, option: str = "--base") -> Comparison:
    """The comparison at the merge base of HEAD with REF (`resolve_base`)."""
    return compare_project(project, *resolve_base(project, ref, option))
