"""The comparison with the base: this branch's result file against the one committed at the merge
base with another branch (`verify --base`, `run --base`, and the action on a pull request). Its values
are engine/changes.py's.

The result file keeps every line's pass counts per arm and model. Read at the base commit (through
git, results/git_files.py, no model call) it answers "did this change make the skill better?" line by
line: this branch's with-skill score against the base's, the delta's 95% interval (Newcombe), and "not
comparable" where the scenario's prompt, its criteria, its output contract or its tests changed, since
the numbers then measure different things. Both files are read defensively: a Node tool's file has no
`scores`, and a skill the base did not have has nothing to compare with; each case says so.

For a loaded project: which files each skill's lines depend on (`skill_files`), and the comparison of
its result file with the base's (`compare_with_base`, for the action: git's failures become a note;
`comparison_at`, for `verify --base` and `run --base`: a ref git cannot resolve is the user's mistake,
one line and exit 2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.engine.changes import (
    COMPARED,
    NEW,
    NOT_COMPARABLE,
    SKILL_COMPARED,
    SKILL_NEW,
    SKILL_NO_HEAD,
    SKILL_NO_SCORES,
    Comparison,
    Counts,
    LineChange,
    SkillChange,
    overall,
    reps_to_decide_line,
)
from skill_be.engine.stats import LOW_SAMPLE_ANSWERS, newcombe
from skill_be.errors import SkillBeError
from skill_be.project.fingerprint import normalize
from skill_be.results.git_files import Base, GitError, close_refs, find_base, read_at, toplevel


class SkillFiles(NamedTuple):
    """What decides whether a skill's lines are comparable, as paths from the repository's top."""

    eval_file: str
    scenarios: Mapping[str, tuple[str, tuple[str, ...], Any]]  # id -> (prompt, criteria, output contract)
    tests: Mapping[str, str]  # scenario id -> its test file
    test_texts: Mapping[str, bytes]  # scenario id -> the test file's bytes in this branch


def compare(
    root: Path,
    base: Base,
    result_file: str,
    head_doc: Any,
    skills: Mapping[str, SkillFiles],
) -> Comparison:
    """Compare `head_doc` (this branch's result file, parsed) with the base's; `result_file` and the
    skills' paths are relative to `root`, the repository's top."""
    paths = [result_file]
    for f in skills.values():
        paths += [f.eval_file, *f.tests.values()]
    try:
        files = read_at(root, base.commit, paths)
    except GitError as e:
        return Comparison(base.commit, base.label, {}, f"the base could not be read: {e}")
    base_doc = _json(files.get(result_file))
    if not isinstance(base_doc, dict) or not isinstance(base_doc.get("skills"), dict):
        return Comparison(base.commit, base.label, {}, f"no result file at {base.label}")
    head_skills = head_doc.get("skills") if isinstance(head_doc, dict) else None
    out: dict[str, SkillChange] = {}
    for name, f in skills.items():
        head = head_skills.get(name) if isinstance(head_skills, dict) else None
        out[name] = compare_skill(name, head, base_doc["skills"].get(name), f, files)
    return Comparison(base.commit, base.label, out)


def compare_skill(name: str, head: Any, base: Any, f: SkillFiles, files: Mapping[str, bytes | None]) -> SkillChange:
    head_scores = _scores(head)
    triggers: dict[str, Any] = {
        "base_triggers": base.get("triggers") if isinstance(base, dict) else None,
        "head_triggers": head.get("triggers") if isinstance(head, dict) else None,
        "base_usage": base.get("usage") if isinstance(base, dict) else None,
        "head_usage": head.get("usage") if isinstance(head, dict) else None,
    }
    base_ready = bool(base.get("ready")) if isinstance(base, dict) else None
    head_ready = bool(head.get("ready")) if isinstance(head, dict) else None
    if head_scores is None:
        return SkillChange(name, SKILL_NO_HEAD, base_ready=base_ready, head_ready=head_ready, **triggers)
    vs_baseline = overall([(x.scenario, x.model, x.baseline, x.head) for x in head_scores])
    low = any(min(x.head[1], x.baseline[1]) < LOW_SAMPLE_ANSWERS for x in head_scores)
    if not isinstance(base, dict):
        lines = tuple(x._replace(status=NEW, why="the base has no such skill") for x in head_scores)
        return SkillChange(name, SKILL_NEW, lines, None, vs_baseline, low, None, head_ready, **triggers)
    base_scores = _scores(base)
    if base_scores is None:
        return SkillChange(
            name, SKILL_NO_SCORES, head_scores, None, vs_baseline, low, base_ready, head_ready, **triggers
        )
    base_eval = _scenarios_of(_json(files.get(f.eval_file)))
    by_key = {(x.model, x.scenario, x.line): x for x in base_scores}
    lines = tuple(_line(x, by_key.get((x.model, x.scenario, x.line)), f, base_eval, files) for x in head_scores)
    compared = [x for x in lines if x.status == COMPARED and x.base is not None]
    vs_base = overall([(x.scenario, x.model, x.base, x.head) for x in compared if x.base]) if compared else None
    low = low or any(x.base is not None and x.base[1] < LOW_SAMPLE_ANSWERS for x in compared)
    return SkillChange(name, SKILL_COMPARED, lines, vs_base, vs_baseline, low, base_ready, head_ready, **triggers)


def _line(
    x: LineChange,
    old: LineChange | None,
    f: SkillFiles,
    base_eval: Mapping[str, tuple[str, tuple[str, ...], Any]] | None,
    files: Mapping[str, bytes | None],
) -> LineChange:
    why = _changed(x, f, base_eval, files)
    if old is None:
        new = base_eval is None or x.scenario not in base_eval
        return x._replace(status=NEW if new else NOT_COMPARABLE, why=why or "not scored at the base")
    if why:
        return x._replace(status=NOT_COMPARABLE, base=old.head, why=why)
    iv = newcombe(old.head[0], old.head[1], x.head[0], x.head[1])
    return x._replace(status=COMPARED, base=old.head, interval=iv, reps_to_decide=reps_to_decide_line(old.head, x.head))


def _changed(
    x: LineChange,
    f: SkillFiles,
    base_eval: Mapping[str, tuple[str, tuple[str, ...], Any]] | None,
    files: Mapping[str, bytes | None],
) -> str:
    """What changed since the base in what this line measures; "" when nothing did."""
    now = f.scenarios.get(x.scenario)
    if base_eval is None:
        return "the eval file at the base could not be read"
    then = base_eval.get(x.scenario)
    if now is None or then is None:
        return "the scenario is new" if then is None else ""
    if now[0] != then[0]:
        return "its prompt changed"
    if x.kind == "test":
        if now[2] != then[2]:
            return "its output contract changed"
        path = f.tests.get(x.scenario)
        then_text, now_text = files.get(path) if path else None, f.test_texts.get(x.scenario)
        # LF-normalised, as fingerprints are: a Windows checkout of the same tests is the same tests
        if path is not None and (then_text is None or now_text is None or normalize(then_text) != normalize(now_text)):
            return "its tests changed"
        return ""
    return "its criteria changed" if now[1] != then[1] else ""


def _scores(entry: Any) -> tuple[LineChange, ...] | None:
    """A result entry's `scores` as lines (with-skill and baseline counts); None when it has none."""
    raw = entry.get("scores") if isinstance(entry, dict) else None
    if not isinstance(raw, list):
        return None
    out: list[LineChange] = []
    for s in raw:
        if not isinstance(s, dict):
            continue
        head, baseline = _counts(s.get("withSkill")), _counts(s.get("baseline"))
        if head is None or baseline is None:
            continue
        model, scenario, line = str(s.get("model", "")), str(s.get("scenario", "")), str(s.get("line", ""))
        kind = "test" if s.get("kind") == "test" else "criterion"
        out.append(LineChange(model, scenario, line, bool(s.get("critical")), COMPARED, head, baseline, kind=kind))
    return tuple(out)


def _counts(arm: Any) -> Counts | None:
    if not isinstance(arm, dict):
        return None
    k, n = arm.get("passed"), arm.get("total")
    ok = isinstance(k, int) and isinstance(n, int) and not isinstance(k, bool) and 0 <= k <= n
    return (k, n) if ok else None  # type: ignore[return-value]


def _json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def _scenarios_of(doc: Any) -> dict[str, tuple[str, tuple[str, ...], Any]] | None:
    """An eval file's scenarios, read without validation (the base's may be of an older shape)."""
    items = doc.get("scenarios") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        return None
    out: dict[str, tuple[str, tuple[str, ...], Any]] = {}
    for s in items:
        if isinstance(s, dict) and isinstance(s.get("id"), str):
            crit = s.get("criteria") or []
            out[s["id"]] = (str(s.get("prompt", "")), tuple(str(c) for c in crit), s.get("output"))
    return out


def scenarios_now(scenarios: Sequence[Any]) -> dict[str, tuple[str, tuple[str, ...], Any]]:
    """The loaded project's scenarios in the shape `_scenarios_of` reads the base's."""
    return {s.id: (s.prompt, tuple(s.criteria), dict(s.output) if s.output is not None else None) for s in scenarios}


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
