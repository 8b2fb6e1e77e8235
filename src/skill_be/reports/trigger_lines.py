"""The trigger scores a result file records, as `verify` prints them: no model call, and no import of
the engine (verify starts fast)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RATES = (("recall", "recall"), ("falseTrigger", "false-trigger"), ("nearMiss", "near-miss"))


def recorded_rate(r: Mapping[str, Any]) -> str:
    if not r.get("total"):
        return "n/a"
    return f"{round(r['percent'])}% ({r['hits']}/{r['total']}; 95% CI {round(r['low'])}–{round(r['high'])}%)"


def recorded_lines(skill: str, triggers: Mapping[str, Any]) -> list[str]:
    """`  duration triggers on m1: recall 83% (5/6; 95% CI 44–97%), false-trigger ...`, per model."""
    out: list[str] = []
    for model, m in (triggers.get("models") or {}).items():
        rates = [f"{word} {recorded_rate(m[key])}" for key, word in RATES if (m.get(key) or {}).get("total")]
        if rates:
            out.append(f"  {skill} triggers on {model}: {', '.join(rates)}")
    return out
