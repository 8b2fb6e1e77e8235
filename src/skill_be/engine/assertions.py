"""Grading without a model: a scenario's deterministic assertions and its budget, per output.

Each assertion and each budget limit is a line of the report with a pass rate per arm, like a
criterion; the verdict comes with its evidence (what matched, or why not), which the report shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skill_be.engine.observations import Output
from skill_be.project.assertions import Assertion, Budget, budget_lines
from skill_be.project.config import Price
from skill_be.project.evals import Scenario

EVIDENCE_CHARS = 160
_BLOCK = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]{0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Checked:
    line: str
    passed: bool
    evidence: str


def first_block(text: str) -> str | None:
    m = _BLOCK.search(text)
    return m.group(2) if m else None


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1] + "…"


def check(assertion: Assertion, answer: str) -> Checked:
    """One assertion against one answer."""
    line = assertion.label
    subject = answer if assertion.target == "answer" else first_block(answer)
    if subject is None:
        return Checked(line, False, "the answer has no fenced code block")
    kind, value = assertion.kind, assertion.value
    if kind == "max-length":
        n = len(subject)
        return Checked(line, n <= value, f"{n} characters (at most {value})")
    if kind == "json-schema":
        return _json_schema(line, value, subject)
    flags = re.IGNORECASE if assertion.ignore_case else 0
    if kind == "regex":
        m = re.search(value, subject, flags | re.MULTILINE)
        return Checked(line, m is not None, f"matched {_clip(m.group(0))!r}" if m else "no match")
    if kind == "equals":
        a, b = subject.strip(), str(value).strip()
        same = a.casefold() == b.casefold() if assertion.ignore_case else a == b
        return Checked(line, same, "equal" if same else f"the answer is {_clip(a)!r}")
    found = re.search(re.escape(value), subject, flags)
    if found is None:
        return Checked(line, kind == "not_contains", "not found")
    near = subject[max(0, found.start() - 20) : found.end() + 20]
    return Checked(line, kind == "contains", f"found at character {found.start()}: {_clip(near)!r}")


def _json_schema(line: str, schema: Mapping[str, Any], subject: str) -> Checked:
    import jsonschema

    try:
        data = json.loads(subject)
    except ValueError as e:
        return Checked(line, False, f"not JSON: {e}")
    errors = sorted(jsonschema.validators.validator_for(schema)(schema).iter_errors(data), key=lambda e: e.path)
    if not errors:
        return Checked(line, True, "valid")
    first = errors[0]
    at = "/".join(str(p) for p in first.absolute_path) or "the top"
    return Checked(line, False, f"at {at}: {_clip(first.message)}")


def check_budget(
    budget: Budget, tokens: int | None, cost_usd: float | None, seconds: float | None, turns: int | None = None
) -> list[Checked]:
    """Each limit against one output's measures. A measure the adapter did not report fails its line,
    with that reason: a limit that cannot be checked must not pass silently."""
    out = []
    for line, limit, got, unit in (
        ("tokens", budget.max_tokens, tokens, "tokens"),
        ("cost", budget.max_cost_usd, cost_usd, "USD"),
        ("seconds", budget.max_seconds, seconds, "s"),
        ("turns", budget.max_turns, turns, "turns"),
    ):
        if limit is None:
            continue
        label = next(x for x in budget_lines(budget) if x.startswith(f"[budget] {line}"))
        if got is None:
            out.append(Checked(label, False, f"not measured: the adapter reported no {unit}"))
        else:
            out.append(Checked(label, got <= limit, f"{got:g} {unit} (limit {limit:g})"))
    return out


def line_names(assertions: Sequence[Assertion], budget: Budget | None) -> list[str]:
    """Every model-free line of a scenario, in report order: assertions, then budget limits."""
    return [a.label for a in assertions] + budget_lines(budget)


def grade_model_free(out: Output, sc: Scenario, price: Price | None, where: str, text: str | None = None) -> None:
    """Append the verdicts of the scenario's assertions and budget limits to the output's (after the
    judge's, one per line of `sc.scored`); each failed line leaves a note with its evidence. The
    assertions read `text` when given (an agent's final message), else the answer."""
    n = len(sc.criteria)
    judged = out.verdicts if len(out.verdicts) == n else [False] * n
    text = text if text is not None else out.text or ""
    results = [check(a, text) for a in sc.assertions]
    if sc.budget is not None:
        u = out.usage
        tokens = (
            u.input_tokens + u.output_tokens
            if u and u.input_tokens is not None and u.output_tokens is not None
            else None
        )
        cost = None
        if price is not None and tokens is not None and u is not None:
            # At the full input price: whether the prompt cache wrote or read depends on the order calls
            # ran in, and a budget's verdict must not (the same answer, the same verdict).
            cost = price.dollars(u.input_tokens or 0, u.output_tokens or 0)
        transcript = (out.agent or {}).get("transcript") or {}  # agent scenarios: what the CLI reported
        turns = transcript.get("turns") if isinstance(transcript, dict) else None
        reported = transcript.get("costUsd") if isinstance(transcript, dict) else None
        cost = float(reported) if isinstance(reported, int | float) and cost is None else cost
        results += check_budget(sc.budget, tokens, cost, out.seconds, turns if isinstance(turns, int) else None)
    out.verdicts = [*judged, *(r.passed for r in results)]
    out.notes += [f"{where}: {r.line}: {r.evidence}" for r in results if not r.passed]
