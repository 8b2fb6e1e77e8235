"""summary.json: every line's per-arm score per model, every output with its verdicts, errors and notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from skill_be import __version__
from skill_be.adapters.base import Usage
from skill_be.checks import CheckOutcome
from skill_be.engine.agreement import overall_why, scenario_why
from skill_be.engine.gate import Gate, LineScore, ScenarioLines
from skill_be.engine.observations import Grading, Output
from skill_be.engine.runner import SkillRun
from skill_be.engine.stats import LOW_SAMPLE_ANSWERS, REPS_CAP, Interval
from skill_be.engine.verdicts import reasoning
from skill_be.reports.across import across_json
from skill_be.reports.gate import gate_reasons, recorded_reasons
from skill_be.reports.judge import judge_json
from skill_be.reports.pairwise import pairwise_json
from skill_be.results.triggers import triggers_json

SCHEMA_VERSION = 1


def _usage(u: Usage | None) -> dict[str, int | None] | None:
    """`input`, `output`, and `cacheWrite` and `cacheRead` (of the input) where not 0."""
    if u is None:
        return None
    cached = {"cacheWrite": u.cache_write_tokens, "cacheRead": u.cache_read_tokens}
    return {"input": u.input_tokens, "output": u.output_tokens, **{k: n for k, n in cached.items() if n}}


def _grading(g: Grading) -> dict[str, object]:
    return {
        "k": g.k,
        "verdicts": g.verdicts,
        "error": g.error,
        "attempts": len(g.replies),
        "attemptErrors": g.attempt_errors,
        "reasons": reasoning(g.replies[-1]) if g.replies else "",
        "seconds": round(g.seconds, 3),
        "usage": _usage(g.usage),
        **_evidence(g),
        **({"judge": g.judge} if g.judge else {}),
    }


def _evidence(g: Grading) -> dict[str, object]:
    """grader.evidence: each criterion's verdict as said, its quote, found or not; absent otherwise."""
    if g.said is None or g.quotes is None or g.found is None:
        return {}
    return {
        "evidence": [{"said": s, "quote": q, "found": f} for s, q, f in zip(g.said, g.quotes, g.found, strict=True)]
    }


def _output(o: Output, file: Path | None, root: Path) -> dict[str, object]:
    return {
        "rep": o.rep,
        "arm": o.arm,
        "file": file.relative_to(root).as_posix() if file else None,
        "error": o.error,
        "seconds": round(o.seconds, 3),
        "promptChars": o.prompt_chars,
        "usage": _usage(o.usage),
        "adapter": o.meta or None,
        "verdicts": o.verdicts,
        "gradings": [_grading(g) for g in o.gradings],
        "tests": dict(o.tests.to_json()) if o.tests else None,
        "errors": o.errors,
        "notes": o.notes,
    }


def _scenario(
    run: SkillRun, sl: ScenarioLines, labels: Sequence[str], output_file: Callable[[Output], Path | None], root: Path
) -> dict[str, object]:
    sc = sl.scenario
    models: dict[str, object] = {}
    for label in labels:
        models[label] = {
            "lines": [
                {
                    "line": x.line,
                    "kind": x.kind,
                    "baseline": x.baseline,
                    "withSkill": x.with_skill,
                    "delta": x.delta,
                    **_line_interval(run, x),
                }
                for x in run.scores
                if x.scenario == sc.id and x.model == label
            ],
            **_scenario_interval(run, sc.id, label),
            "outputs": [
                _output(o, output_file(o), root) for o in run.outputs if o.scenario == sc.id and o.model == label
            ],
        }
    return {
        "id": sc.id,
        "critical": sc.critical,
        "prompt": sc.prompt,
        "criteria": list(sc.criteria),
        "tests": list(sl.tests),
        "models": models,
    }


def skill_summary(
    run: SkillRun, labels: Sequence[str], fingerprint: str, output_file: Callable[[Output], Path | None], root: Path
) -> dict[str, object]:
    scenarios = [_scenario(run, sl, labels, output_file, root) for sl in run.lines]
    g = run.gate
    return {
        "ready": g.ready,
        "reasons": gate_reasons(g),
        "why": recorded_reasons(g),
        **({"across": across_json(g.across)} if g.across else {}),
        "errors": run.errors,
        "seconds": round(run.seconds, 3),
        "fingerprint": fingerprint,
        "graded": any(sl.scenario.criteria for sl in run.lines),
        "gate": {
            "zero": [{"scenario": sc, "line": line} for sc, line in g.zero],
            "regressions": [
                {
                    "scenario": r.scenario,
                    "model": r.model,
                    "line": r.line,
                    "baseline": r.baseline,
                    "withSkill": r.with_skill,
                }
                for r in g.regressions
            ],
            "errors": g.errors,
            **_gate_evidence(g),
        },
        **_overall(g),
        **judge_json(run.judge),  # the judge's own noise, with gradings >= 2 (reports/judge.py)
        **pairwise_json(run.pairwise),  # compare.pairwise (reports/pairwise.py)
        "scenarios": scenarios,
        **({"triggers": triggers_json(g.trigger)} if g.trigger is not None else {}),
    }


def _iv(iv: Interval) -> dict[str, object]:
    """An interval in percentage points, one decimal."""
    return {"estimate": _pp(iv.estimate), "low": _pp(iv.low), "high": _pp(iv.high)}


def _pp(x: float) -> float:
    return round(x * 100, 1)


def _line_interval(run: SkillRun, x: LineScore) -> dict[str, object]:
    fx = run.gate.effects
    iv = fx.lines.get((x.scenario, x.model, x.line)) if fx else None
    if iv is None:
        return {}
    return {
        "counts": {
            "baseline": [x.baseline_passed, x.baseline_total],
            "withSkill": [x.with_skill_passed, x.with_skill_total],
        },
        "deltaInterval": _iv(iv),
        "effect": iv.label,
    }


def _scenario_interval(run: SkillRun, scenario: str, model: str) -> dict[str, object]:
    fx = run.gate.effects
    e = next((e for e in fx.scenarios if e.scenario == scenario and e.model == model), None) if fx else None
    if e is None:
        return {}
    return {
        "pooled": {
            **_iv(e.interval),
            "effect": e.interval.label,
            "answers": {"baseline": e.answers[0], "withSkill": e.answers[1]},
            "lowSample": min(e.answers) < LOW_SAMPLE_ANSWERS,
            "repsToDecide": e.reps_to_decide if e.reps_to_decide <= REPS_CAP else None,
            "why": scenario_why(fx, scenario, model) if fx else None,
        }
    }


def _overall(g: Gate) -> dict[str, object]:
    fx = g.effects
    if fx is None:
        return {}
    return {
        "effect": {
            **_iv(fx.overall),
            "label": fx.overall.label,
            "lowSample": fx.low_sample,
            "seed": fx.seed,
            "oneScenario": fx.one_scenario,
            "why": overall_why(fx),
        }
    }


def _gate_evidence(g: Gate) -> dict[str, object]:
    """What skill-be adds to the reference's gate keys: the rule and levels, and what they found."""
    return {
        **g.levels.to_json(),
        "noise": [
            {
                "scenario": n.score.scenario,
                "model": n.score.model,
                "line": n.score.line,
                "interval": _iv(n.interval),
                "repsToDecide": n.reps if n.reps <= REPS_CAP else None,
            }
            for n in g.notes
        ],
        "blocks": [
            {"scenario": b.scenario, "model": b.model, "line": b.line, "bound": _iv(b.interval), "look": b.look}
            for b in g.blocks
        ],
        "inconclusive": [
            {
                "scenario": i.scenario,
                "model": i.model,
                "line": i.line,
                "interval": _iv(i.interval),
                "repsToDecide": i.reps if i.reps <= REPS_CAP else None,
                "reps": i.have,
            }
            for i in g.inconclusive
        ],
        "inconclusiveBlocks": g.inconclusive_blocks,
        "topUp": [{"scenario": t.scenario, "model": t.model, "from": t.reps_from, "to": t.reps_to} for t in g.top_up],
    }


def checks_summary(outcomes: Sequence[CheckOutcome]) -> list[dict[str, object]]:
    return [
        {
            "name": c.name,
            "lines": list(c.lines),
            "blocks": c.blocks,
            "problems": [p.as_json() for p in c.problems],
        }
        for c in outcomes
    ]


def run_summary(
    meta: Mapping[str, object], skills: Mapping[str, object], checks: Sequence[CheckOutcome] | None
) -> dict[str, object]:
    """summary.json's document, in the shape and key order of its model (results/summary_models.py
    `SummaryModel`): tests hold every document this writes to `SummaryModel.of(doc).to_json()`, byte
    for byte, so `run` need not import pydantic to validate what it just built (about 0.1 s)."""
    return {
        "schema": SCHEMA_VERSION,
        "skillBeVersion": __version__,
        **meta,
        "skills": dict(skills),
        "checks": checks_summary(checks) if checks is not None else None,
    }
