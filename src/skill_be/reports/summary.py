"""summary.json: every line's per-arm score per model, every output with its verdicts, errors and notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from skill_be import __version__
from skill_be.adapters.base import Usage
from skill_be.checks import CheckOutcome
from skill_be.engine.observations import Grading, Output
from skill_be.engine.runner import SkillRun
from skill_be.engine.verdicts import reasoning

SCHEMA_VERSION = 1


def _usage(u: Usage | None) -> dict[str, int | None] | None:
    return None if u is None else {"input": u.input_tokens, "output": u.output_tokens}


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


def skill_summary(
    run: SkillRun, labels: Sequence[str], fingerprint: str, output_file: Callable[[Output], Path | None], root: Path
) -> dict[str, object]:
    scenarios = []
    for sl in run.lines:
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
                    }
                    for x in run.scores
                    if x.scenario == sc.id and x.model == label
                ],
                "outputs": [
                    _output(o, output_file(o), root) for o in run.outputs if o.scenario == sc.id and o.model == label
                ],
            }
        scenarios.append(
            {
                "id": sc.id,
                "critical": sc.critical,
                "prompt": sc.prompt,
                "criteria": list(sc.criteria),
                "tests": list(sl.tests),
                "models": models,
            }
        )
    g = run.gate
    return {
        "ready": g.ready,
        "reasons": g.reasons(),
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
        },
        "scenarios": scenarios,
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
    return {
        "schema": SCHEMA_VERSION,
        "skillBeVersion": __version__,
        **meta,
        "skills": dict(skills),
        "checks": checks_summary(checks) if checks is not None else None,
    }
