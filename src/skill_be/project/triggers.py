"""Trigger evals' records, without pydantic (the file models are project/trigger_models.py): the
queries of an eval file's `triggers:`, `gate.trigger`, and the check the schema cannot make (a query
written twice, across both lists)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

SHOULD, SHOULD_NOT, NEAR = "should", "shouldNot", "near"
KINDS = (SHOULD, SHOULD_NOT, NEAR)
DEFAULT_TRIGGER_TURNS = 3  # CLI adapters: a skill loaded within this many agent turns counts
MAX_TRIGGER_TURNS = 50


class TriggerQuery(NamedTuple):
    prompt: str
    kind: str  # should | shouldNot | near
    at: tuple[str | int, ...]  # its key path in the eval file, for errors and JUnit names

    @property
    def expected(self) -> bool:
        return self.kind == SHOULD


class Triggers(NamedTuple):
    queries: tuple[TriggerQuery, ...]

    def of(self, kind: str) -> tuple[TriggerQuery, ...]:
        return tuple(q for q in self.queries if q.kind == kind)


class TriggerGate(NamedTuple):
    min_recall: float | None = None  # percent
    max_false_trigger: float | None = None

    @property
    def set(self) -> bool:
        return self.min_recall is not None or self.max_false_trigger is not None


def read_triggers(data: Mapping[str, Any] | None) -> tuple[Triggers | None, tuple[str | int, ...] | None, str]:
    """The records of a validated `triggers:` value, and the first problem the schema lets through
    (a query written twice): (triggers, key path of the problem or None, the problem)."""
    if not data:
        return None, None, ""
    queries: list[TriggerQuery] = []
    seen: dict[str, tuple[str | int, ...]] = {}
    for key in (SHOULD, SHOULD_NOT):
        for i, q in enumerate(data.get(key) or ()):
            prompt, near = (q, False) if isinstance(q, str) else (q["prompt"], bool(q.get("near", False)))
            at: tuple[str | int, ...] = ("triggers", key, i)
            if near and key == SHOULD:
                return (
                    None,
                    (*at, "near"),
                    '"near: true" marks a query the skill should NOT load on; move it to shouldNot',
                )
            norm = " ".join(prompt.split()).casefold()
            if norm in seen:
                first = _path(seen[norm])
                return None, at, f"the same query as {first}; each query once (reps repeat it)"
            seen[norm] = at
            kind = NEAR if near else key
            queries.append(TriggerQuery(prompt.strip(), kind, at))
    return Triggers(tuple(queries)), None, ""


def trigger_gate(d: Mapping[str, Any] | None) -> TriggerGate | None:
    if not d:
        return None
    return TriggerGate(
        float(d["minRecall"]) if d.get("minRecall") is not None else None,
        float(d["maxFalseTrigger"]) if d.get("maxFalseTrigger") is not None else None,
    )


def _path(at: Sequence[str | int]) -> str:
    out = ""
    for part in at:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out
