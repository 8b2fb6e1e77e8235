"""Partial runs (`run --shard K/N`) and what `merge` needs to put them back together.

The work is cut into units of (skill, scenario, model, rep): both arms of one rep, each with its
gradings and code tests, so an output never leaves its gradings behind. Units go to shards greedily,
heaviest first (by model calls), each to the shard with the fewest calls so far: the same inputs
always give the same cut. A partial run writes `shard.json` in its run folder: which shard of which
plan it is, every output in full (answer, every grading reply, code-test results), and `complete`,
set only when the run finished, so an interrupted shard is refused by merge.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from skill_be.adapters.base import Usage
from skill_be.engine.observations import Grading, Output
from skill_be.engine.runner import SkillRun
from skill_be.errors import ConfigError, UsageError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.project.loader import Project
from skill_be.results.atomic import write_atomic

if TYPE_CHECKING:  # the models (pydantic) load only when a shard is written or merged
    from skill_be.results.shard_models import OutputRecord, ShardSkill
    from skill_be.results.summary_models import SummaryModel, UsageSummary

SHARD_FILE = "shard.json"
FORMAT = 1
_SHARD = re.compile(r"^(\d+)/(\d+)$")

Unit = tuple[str, str, str, int]  # skill, scenario, model label, rep


class Shard(NamedTuple):
    k: int  # 1-based
    of: int


def parse_shard(text: str) -> Shard:
    m = _SHARD.match(text.strip())
    if m is None or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise UsageError(f'--shard: "{text}" is not K/N with 1 <= K <= N, such as --shard 2/4', "run")
    return Shard(int(m.group(1)), int(m.group(2)))


def units(project: Project, labels: Sequence[str], reps: int, gradings: int, graded: bool) -> list[tuple[Unit, int]]:
    """Every unit of the plan in the engine's order, with its model calls (both arms and their gradings)."""
    out: list[tuple[Unit, int]] = []
    for skill in project.skills:
        for sc in skill.evals.scenarios:
            calls = 2 * (1 + (gradings if sc.criteria and graded else 0))
            for label in labels:
                for rep in range(1, reps + 1):
                    out.append(((skill.name, sc.id, label, rep), calls))
    return out


def assign(plan: Sequence[tuple[Unit, int]], n: int) -> dict[Unit, int]:
    """Unit -> its shard (1-based): heaviest first, each to the lightest shard so far (ties: the lowest)."""
    load = [0] * n
    where: dict[Unit, int] = {}
    ordered = sorted(range(len(plan)), key=lambda i: (-plan[i][1], i))
    for i in ordered:
        unit, calls = plan[i]
        k = min(range(n), key=lambda j: (load[j], j))
        load[k] += calls
        where[unit] = k + 1
    return where


def plan_id(project: Project, labels: Sequence[str], reps: int, gradings: int, n: int) -> str:
    """What every shard of one plan shares: the skills' fingerprints (SKILL.md, eval file, config, tests),
    the models, reps, gradings and the number of shards."""
    doc = {
        "skills": {s.name: project.fingerprint(s) for s in project.skills},
        "models": list(labels),
        "reps": reps,
        "gradings": gradings,
        "shards": n,
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()


def in_shard(where: Mapping[Unit, int], shard: Shard) -> Callable[[str, str, str, int], bool]:
    def mine(skill: str, scenario: str, model: str, rep: int) -> bool:
        return where.get((skill, scenario, model, rep)) == shard.k

    return mine


# --- outputs in full, to and from JSON (results/shard_models.py) ---------------------------------


def _usage(u: Usage | None) -> dict[str, int | None] | None:
    """`input`, `output`, and `cacheWrite` and `cacheRead` (of the input) where not 0."""
    if u is None:
        return None
    cached = {"cacheWrite": u.cache_write_tokens, "cacheRead": u.cache_read_tokens}
    return {"input": u.input_tokens, "output": u.output_tokens, **{k: n for k, n in cached.items() if n}}


def _usage_from(u: UsageSummary | None) -> Usage | None:
    return None if u is None else Usage(u.input, u.output, u.cache_write or 0, u.cache_read or 0)


def output_json(o: Output, redact: Callable[[str], str]) -> dict[str, object]:
    return {
        "scenario": o.scenario,
        "model": o.model,
        "rep": o.rep,
        "arm": o.arm,
        "promptChars": o.prompt_chars,
        "text": None if o.text is None else redact(o.text),
        "error": None if o.error is None else redact(o.error),
        "seconds": o.seconds,
        "usage": _usage(o.usage),
        "meta": o.meta,
        "gradings": [
            {
                "k": g.k,
                "verdicts": g.verdicts,
                "error": g.error,
                "replies": [redact(r) for r in g.replies],
                "attemptErrors": [redact(e) for e in g.attempt_errors],
                "seconds": g.seconds,
                "usage": _usage(g.usage),
                **({"said": g.said, "quotes": g.quotes, "found": g.found} if g.said is not None else {}),
                **({"judge": g.judge} if g.judge else {}),
            }
            for g in o.gradings
        ],
        "verdicts": o.verdicts,
        "tests": dict(o.tests.to_json()) if o.tests is not None else None,
        "notes": [redact(n) for n in o.notes],
        "errors": [redact(e) for e in o.errors],
        "agent": o.agent,  # agent scenarios: transcript, diff, changed files (engine/agent.py)
    }


def output_from(r: OutputRecord) -> Output:
    tests = None
    if r.tests is not None:
        from skill_be.codetests.outcome import TestResult, TestRun

        tests = TestRun(
            results=tuple(
                TestResult(t.name, t.passed, t.message, float(t.seconds), t.message_from) for t in r.tests.tests
            ),
            error=r.tests.error,
        )
    return Output(
        scenario=r.scenario,
        model=r.model,
        rep=r.rep,
        arm=r.arm,
        prompt_chars=r.prompt_chars,
        text=r.text,
        error=r.error,
        seconds=float(r.seconds),
        usage=_usage_from(r.usage),
        meta=dict(r.meta or {}),
        gradings=[
            Grading(
                k=g.k,
                verdicts=g.verdicts,
                error=g.error,
                replies=list(g.replies),
                attempt_errors=list(g.attempt_errors),
                seconds=float(g.seconds),
                usage=_usage_from(g.usage),
                said=g.said,
                quotes=g.quotes,
                found=g.found,
                judge=g.judge,
            )
            for g in r.gradings
        ],
        verdicts=list(r.verdicts or ()),
        tests=tests,
        notes=list(r.notes),
        errors=list(r.errors),
        agent=r.agent,
    )


class ShardWriter:
    """Keeps a partial run's shard.json up to date: after every skill, and `complete` at the very end."""

    def __init__(self, folder: Path, shard: Shard, plan: str, skills: Sequence[str], redact: Callable[[str], str]):
        self.path = folder / SHARD_FILE
        self.head = {"format": FORMAT, "index": shard.k, "of": shard.of, "plan": plan, "skillNames": list(skills)}
        self.redact = redact
        self.skills: dict[str, dict[str, object]] = {}

    def skill(self, run: SkillRun) -> None:
        self.skills[run.skill.name] = {
            "seconds": run.seconds,
            "tests": {sl.scenario.id: list(sl.tests) for sl in run.lines},
            "outputs": [output_json(o, self.redact) for o in run.outputs],
        }
        self.write(False)

    def write(self, complete: bool) -> None:
        from skill_be.results.shard_models import ShardManifest

        manifest = ShardManifest.of_doc({**self.head, "complete": complete, "skills": self.skills})
        write_atomic(self.path, manifest.to_json())


# --- merge: reading and checking a set of partial runs --------------------------------------------


class PartialRun(NamedTuple):
    folder: Path
    k: int
    of: int
    plan: str
    skill_names: tuple[str, ...]
    skills: Mapping[str, ShardSkill]
    summary: SummaryModel


def read_partial(folder: Path) -> PartialRun:
    """A finished shard's shard.json and summary.json, through their models."""
    from skill_be.project.places import Places
    from skill_be.project.validation import validate
    from skill_be.results.shard_models import ShardManifest
    from skill_be.results.summary_file import read_summary

    path = folder / SHARD_FILE
    if not path.is_file():
        raise ConfigError(f"{shown(folder)}: not a partial run (no {SHARD_FILE}); pass the folders `run --shard` wrote")
    fix = "run that shard again"
    text = read_text(path, what=SHARD_FILE)
    doc = load_json(text, shown(path), fix)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ConfigError(f"{shown(path)}: written by another skill-be version; {fix}")
    try:
        manifest = validate(ShardManifest, doc, shown(path), Places(text, "json"))
    except ConfigError as e:
        raise ConfigError(f"{e}; {fix}") from None
    summary = read_summary(folder / "summary.json", fix)
    m = manifest
    if not m.complete:
        raise ConfigError(f"{shown(folder)}: shard {m.index}/{m.of} was interrupted before it finished; run it again")
    return PartialRun(folder, m.index, m.of, m.plan, tuple(m.skill_names), m.skills, summary)


def check_set(parts: Iterable[PartialRun], expected_plan: str | None = None) -> list[PartialRun]:
    """The shards 1..N of one plan, in order; a mismatch, a duplicate or a gap is one line."""
    runs = list(parts)
    first = runs[0]
    for r in runs[1:]:
        if (r.plan, r.of) != (first.plan, first.of):
            raise ConfigError(
                f"{shown(r.folder)}: a shard of another plan than {shown(first.folder)} (other config, inputs, "
                "models, reps or shard count); merge the shards of one run"
            )
    if expected_plan is not None and first.plan != expected_plan:
        raise ConfigError(
            f"{shown(first.folder)}: its shards were run with other skills, evals, config or tests than now; "
            "merge with the same inputs, or run the shards again"
        )
    by_index: dict[int, PartialRun] = {}
    for r in runs:
        if r.k in by_index:
            raise ConfigError(
                f"shard {r.k}/{r.of} given twice ({shown(by_index[r.k].folder)} and {shown(r.folder)}); "
                "pass each shard once"
            )
        by_index[r.k] = r
    missing = [str(k) for k in range(1, first.of + 1) if k not in by_index]
    if missing:
        which = (
            f"shards {', '.join(missing)} of {first.of} are"
            if len(missing) > 1
            else f"shard {missing[0]}/{first.of} is"
        )
        raise ConfigError(f"{which} missing; pass the run folder of every shard (got {len(runs)})")
    return [by_index[k] for k in range(1, first.of + 1)]
