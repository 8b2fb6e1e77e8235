"""The action's default previous arm: `run` on a pull request compares each skill with its version at
the pull request's merge base with its base branch (`run --against`, wiring/previous.py), unless the
step's args or the config's `compare.against` name a commit themselves, or `previous-arm: false`.

A sharded run has no previous arm (run refuses the pair), and a base that git cannot find is a
warning, never a failed step: the run goes on without the previous arm."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from skill_be.engine.changes import (
    COMPARED,
    NOT_COMPARABLE,
    SKILL_COMPARED,
    Comparison,
    LineChange,
    SkillChange,
    overall,
    reps_to_decide_line,
)
from skill_be.engine.stats import LOW_SAMPLE_ANSWERS, Interval
from skill_be.github.inputs import Context, Inputs
from skill_be.results.git_files import GitError, find_base, toplevel


def against_args(
    inputs: Inputs, ctx: Context, cwd: Path, against_in_config: bool, warn: Callable[[str], None]
) -> tuple[str, ...]:
    """`--against <merge base>` to add to the run's args, or nothing (module doc)."""
    args = inputs.args
    if inputs.command != "run" or not inputs.previous_arm or ctx.base is None or against_in_config:
        return ()
    if any(a == "--against" or a.startswith("--against=") or a.startswith("--shard") for a in args):
        return ()
    try:
        root = toplevel(cwd)
    except GitError:
        return ()  # no repository here: no version to compare with (the comparison says so too)
    found = find_base(root, ctx.base[0], name=ctx.base[1])
    if isinstance(found, GitError):
        warn(f"skill-be: no previous arm for this run: {found}")
        return ()
    return ("--against", found.commit)


def previous_comparison(skills: Mapping[str, Any]) -> Comparison | None:
    """The run's previous-arm comparison, read back from summary.json's `previous` keys (by skill)
    for the comment; None when the run had no previous arm."""
    changes: dict[str, SkillChange] = {}
    commit = label = ""
    for name, doc in skills.items():
        prev = doc.get("previous") if isinstance(doc, Mapping) else None
        if not isinstance(prev, Mapping):
            continue
        commit, label = str(prev.get("commit", "")), str(prev.get("label", ""))
        lines = tuple(_line(x) for x in prev.get("lines") or [] if isinstance(x, Mapping))
        compared = [x for x in lines if x.status == COMPARED and x.base is not None]
        vs = overall([(x.scenario, x.model, x.base, x.head) for x in compared if x.base]) if compared else None
        vs_baseline = overall([(x.scenario, x.model, x.baseline, x.head) for x in lines])
        low = any(min(x.head[1], x.baseline[1]) < LOW_SAMPLE_ANSWERS for x in lines)
        changes[name] = SkillChange(name, str(prev.get("status", SKILL_COMPARED)), lines, vs, vs_baseline, low)
    return Comparison(commit, label, changes, decided=True) if changes else None


def _counts(x: Any) -> tuple[int, int] | None:
    if not isinstance(x, Mapping):
        return None
    return int(x.get("passed", 0)), int(x.get("total", 0))


def _line(x: Mapping[str, Any]) -> LineChange:
    head, base = _counts(x.get("withSkill")) or (0, 0), _counts(x.get("previous"))
    iv = x.get("interval")
    interval = Interval(float(iv["estimate"]), float(iv["low"]), float(iv["high"])) if isinstance(iv, Mapping) else None
    return LineChange(
        model=str(x.get("model", "")),
        scenario=str(x.get("scenario", "")),
        line=str(x.get("line", "")),
        critical=bool(x.get("critical")),
        status=str(x.get("status", NOT_COMPARABLE)),
        head=head,
        baseline=_counts(x.get("baseline")) or (0, 0),
        base=base,
        interval=interval,
        reps_to_decide=reps_to_decide_line(base, head) if base is not None and interval is not None else None,
        why=str(x.get("why", "")),
        kind="test" if x.get("kind") == "test" else "criterion",
    )


def with_base_sides(previous: Comparison, base: Comparison | None) -> Comparison:
    """The previous arm's comparison with what only the base's result file records: trigger rates
    before and after, and the skill's token use (the previous arm runs no trigger calls)."""
    if base is None:
        return previous
    changes = {}
    for name, change in previous.skills.items():
        b = base.skills.get(name)
        changes[name] = (
            change
            if b is None
            else change._replace(
                base_triggers=b.base_triggers,
                head_triggers=b.head_triggers,
                base_usage=b.base_usage,
                head_usage=b.head_usage,
            )
        )
    return previous._replace(skills=changes)
