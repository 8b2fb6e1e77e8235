"""Trigger evals in the files a run leaves: the `triggers` section of a skill in summary.json (with
every call) and in the result file (the scores only, so `verify` can show them without a model
call). One JSON shape, written by `triggers_json`, read through the models below (which are part of
the published schemas)."""

from __future__ import annotations

from skill_be.engine.trigger_scores import Rate, TriggerResult
from skill_be.engine.triggers import query_id


def _pct(x: float) -> float:
    return round(x * 100, 1)


def rate_json(r: Rate) -> dict[str, object]:
    iv = r.interval()
    return {"hits": r.hits, "total": r.total, "percent": _pct(iv.estimate), "low": _pct(iv.low), "high": _pct(iv.high)}


def triggers_json(t: TriggerResult, calls: bool = True) -> dict[str, object]:
    doc: dict[str, object] = {
        "ready": t.ready,
        "rule": t.rule,
        "reps": t.reps,
        "offered": list(t.offered),
        "models": {
            m.model: {
                "recall": rate_json(m.recall),
                "falseTrigger": rate_json(m.false_trigger),
                "nearMiss": rate_json(m.near_miss),
                "errors": m.errors,
                "confusion": {k: dict(row) for k, row in m.confusion.items()},
            }
            for m in t.models
        },
        "checks": [
            {
                "model": c.model,
                "key": c.key,
                "threshold": c.threshold,
                "outcome": c.outcome,
                "rate": rate_json(c.rate),
                "reps": c.reps,
            }
            for c in t.checks
        ],
    }
    if calls:
        doc["calls"] = [
            {
                "id": query_id(o.query),
                "kind": o.query.kind,
                "query": o.query.prompt,
                "model": o.model,
                "rep": o.rep,
                "loaded": o.chosen,
                "error": o.error,
                "seconds": round(o.seconds, 3),
            }
            for o in t.observations
        ]
    return doc
