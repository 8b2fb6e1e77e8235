"""The records of a scenario's deterministic assertions and budget, as the engine reads them (no
pydantic here: the models in assertion_models.py validate, these carry the values)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Assertion:
    kind: str  # contains, not_contains, regex, equals, json-schema, max-length
    value: Any
    label: str  # the report line, "[assert] ..."
    target: str = "answer"  # answer | code
    ignore_case: bool = False


@dataclass(frozen=True)
class Budget:
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    max_seconds: float | None = None
    max_turns: int | None = None

    def merged(self, fallback: Budget | None) -> Budget:
        """This budget, with the limits it leaves unset taken from `fallback` (the skill's)."""
        if fallback is None:
            return self
        return Budget(
            max_tokens=self.max_tokens if self.max_tokens is not None else fallback.max_tokens,
            max_cost_usd=self.max_cost_usd if self.max_cost_usd is not None else fallback.max_cost_usd,
            max_seconds=self.max_seconds if self.max_seconds is not None else fallback.max_seconds,
            max_turns=self.max_turns if self.max_turns is not None else fallback.max_turns,
        )


def assertion_from(data: Mapping[str, Any]) -> Assertion:
    """The record of one validated `assertions` entry (keys as the file spells them)."""
    from skill_be.project.assertion_models import AssertionModel

    model = AssertionModel.model_validate(dict(data))
    return Assertion(
        kind=model.type, value=model.value, label=model.label(), target=model.in_, ignore_case=model.ignore_case
    )


def budget_from(data: Mapping[str, Any] | None) -> Budget | None:
    if not data:
        return None
    return Budget(
        max_tokens=data.get("maxTokens"),
        max_cost_usd=data.get("maxCostUsd"),
        max_seconds=data.get("maxSeconds"),
        max_turns=data.get("maxTurns"),
    )


def budget_lines(budget: Budget | None) -> list[str]:
    """The report lines of a budget, in a fixed order."""
    if budget is None:
        return []
    lines = []
    if budget.max_tokens is not None:
        lines.append(f"[budget] tokens ≤ {budget.max_tokens}")
    if budget.max_cost_usd is not None:
        lines.append(f"[budget] cost ≤ ${budget.max_cost_usd:g}")
    if budget.max_seconds is not None:
        lines.append(f"[budget] seconds ≤ {budget.max_seconds:g}")
    if budget.max_turns is not None:
        lines.append(f"[budget] turns ≤ {budget.max_turns}")
    return lines
