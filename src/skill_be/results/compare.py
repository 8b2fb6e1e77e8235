"""Free comparisons: this branch's recorded scores against the base branch's committed ones.

The result file keeps every line's pass counts per arm and model. Read at the base commit (through
git, no model call) it answers "did this change make the skill better?" line by line: this branch's
with-skill score against the base's, the delta's 95% interval (Newcombe), and "not comparable" where
the scenario's prompt, its criteria, its output contract or its tests changed, since the numbers then
measure different things. Both files are read defensively: a Node tool's file has no `scores`, and
a skill the base did not have has nothing to compare with; each case says so.

Each skill's overall effect is the mean over its (scenario, model) pairs of the mean line delta. Its
interval treats the lines of one scenario as moving together (the variance of their mean is taken as
the square of the mean of their standard deviations, an upper bound), scenarios and models as
independent: it is wider than the run's bootstrap interval, never narrower.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.engine.stats import LOW_SAMPLE_ANSWERS, REPS_CAP, Interval, line_variance, newcombe, reps_to_decide
from skill_be.project.fingerprint import normalize
from skill_be.results.git_files import Base, GitError, read_at

Z95 = 1.959963984540054
COMPARED, NOT_COMPARABLE, NEW = "compared", "not comparable", "new"
# A skill's comparison as a whole.
SKILL_COMPARED, SKILL_NEW, SKILL_NO_SCORES, SKILL_NO_HEAD = "compared", "new skill", "no scores at base", "no scores"

Counts = tuple[int, int]  # passed, total


class LineChange(NamedTuple):
    """One line of one scenario on one model: this branch's with-skill score against the base's."""

    model: str
    scenario: str
    line: str
    critical: bool
    status: str  # compared | not comparable | new
    head: Counts  # with skill, this branch
    baseline: Counts  # without the skill, this branch
    base: Counts | None = None  # with skill, the base
    interval: Interval | None = None  # head - base, fractions
    reps_to_decide: int | None = None  # reps per arm at which the interval would leave 0
    why: str = ""  # not comparable: what changed
    kind: str = "criterion"  # criterion | test (engine/gate.py LineScore.kind): what the line measures

    @property
    def moved(self) -> bool:
        """Beyond its noise: the interval of the change leaves 0."""
        return self.interval is not None and not self.interval.contains(0.0)


class SkillChange(NamedTuple):
    name: str
    status: str  # SKILL_*
    lines: tuple[LineChange, ...] = ()
    vs_base: Interval | None = None  # the overall change against the base
    vs_baseline: Interval | None = None  # this branch's overall effect against no skill
    low_sample: bool = False
    base_ready: bool | None = None
    head_ready: bool | None = None
    base_triggers: Any = None  # the result files' `triggers` sections, when recorded
    head_triggers: Any = None
    base_usage: Any = None  # the result files' `usage` (tokens and cost per answer), when recorded
    head_usage: Any = None


class Comparison(NamedTuple):
    base: str  # the base commit
    label: str  # how the comment names it
    skills: Mapping[str, SkillChange]
    note: str = ""  # why there is nothing to compare (no result file at the base)
    decided: bool = False  # the run's own gate applied gate.previous to it (the previous arm)


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


def reps_to_decide_line(before: Counts, after: Counts) -> int:
    """Reps per arm at which a line's change (after - before) would leave 0, at its observed size."""
    iv = newcombe(before[0], before[1], after[0], after[1])
    return reps_to_decide(line_variance(before[0], before[1], after[0], after[1]), abs(iv.estimate), Z95)


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


def _diff(before: Counts, after: Counts) -> tuple[float, float]:
    """A line's change (after - before) and its variance, from shares shrunk toward 1/2."""
    d = (after[0] / after[1] if after[1] else 0.0) - (before[0] / before[1] if before[1] else 0.0)
    pa, pb = (after[0] + 1) / (after[1] + 2), (before[0] + 1) / (before[1] + 2)
    var = pa * (1 - pa) / max(after[1], 1) + pb * (1 - pb) / max(before[1], 1)
    return d, var


def overall(items: Sequence[tuple[str, str, Counts, Counts]]) -> Interval | None:
    """The mean over (scenario, model) of the mean line change from `before` to `after` counts, with
    a 95% interval (module doc)."""
    units: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for scenario, model, before, after in items:
        units.setdefault((scenario, model), []).append(_diff(before, after))
    if not units:
        return None
    means = [sum(d for d, _ in u) / len(u) for u in units.values()]
    # Lines of a scenario move together: the SD of their mean is at most the mean of their SDs.
    variances = [(sum(math.sqrt(v) for _, v in u) / len(u)) ** 2 for u in units.values()]
    k = len(means)
    est = sum(means) / k
    half = Z95 * math.sqrt(sum(variances)) / k
    return Interval(est, max(-1.0, est - half), min(1.0, est + half))


def reps_text(reps: int | None) -> str:
    if reps is None:
        return ""
    return f"more than {REPS_CAP}" if reps > REPS_CAP else str(reps)
