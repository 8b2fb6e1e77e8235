"""One answer across agents in words: the table of a skill's models (engine/across.py), one row each,
for the Markdown report and summary.json (`across`), which results.html and the PR comment (and the
check run, which shows the comment) render from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_be.engine.gate import ModelRow
from skill_be.engine.gate import signed_pp as pp
from skill_be.reports import strings as s
from skill_be.reports.quote import md_text

if TYPE_CHECKING:
    from skill_be.results.summary_models import AcrossRow

HEAD = (
    "| Model | Must hold | Loaded | Baseline | With skill | Delta (95%) | Verdict |\n"
    "|-------|-----------|--------|----------|------------|-------------|---------|"
)


def across_head() -> str:
    return HEAD


def across_json(rows: Sequence[ModelRow]) -> list[dict[str, object]]:
    """summary.json's `across`: a row per model (results/summary_models.py AcrossRow)."""
    return [
        {
            "model": r.model,
            "required": r.required,
            "loaded": {
                "agent": list(r.agent_loaded) if r.agent_loaded else None,
                "trigger": list(r.trigger_loaded) if r.trigger_loaded else None,
            },
            "baseline": {"passed": r.baseline[0], "total": r.baseline[1]},
            "withSkill": {"passed": r.with_skill[0], "total": r.with_skill[1]},
            "effect": None
            if r.effect is None
            else {"estimate": _p1(r.effect.estimate), "low": _p1(r.effect.low), "high": _p1(r.effect.high)},
            "verdict": s.READY if r.ready else s.NOT_READY,
        }
        for r in rows
    ]


def _p1(x: float) -> float:
    return round(100 * x, 1)


def across_section(rows: Sequence[ModelRow]) -> list[str]:
    """The Markdown table (nothing for one model)."""
    if not rows:
        return []
    out = ["### Across models", "", HEAD]
    out += [table_row(r) for r in across_json(rows)]
    return [*out, "", _required_line(rows)]


def _required_line(rows: Sequence[ModelRow]) -> str:
    return required_text([r.model for r in rows if r.required], len(rows))


def required_text(required: Sequence[str], of: int) -> str:
    if not required:
        return (
            "The verdict pools every model (the reference's rule); each model's own verdict is shown,"
            " not required. Set gate.models to require the skill to hold on a model."
        )
    if len(required) == of:
        return "The verdict needs the skill to hold on every model (gate.models)."
    return f"The verdict needs the skill to hold on {', '.join(required)} (gate.models); the others are reported."


def across_cells(rows: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, str]], str]:
    """summary.json's `across` as text cells (results.html, which escapes them), and the line that
    says which models were required."""
    cells = [
        {
            "model": str(r["model"]),
            "required": "yes" if r.get("required") else "no",
            "loaded": loaded_text(r.get("loaded")),
            "baseline": _rate(r.get("baseline")),
            "with_skill": _rate(r.get("withSkill")),
            "effect": effect_text(r.get("effect")),
            "verdict": str(r.get("verdict", "")),
        }
        for r in rows
    ]
    required = [str(r["model"]) for r in rows if r.get("required")]
    return cells, required_text(required, len(rows)) if rows else ""


def typed_cells(rows: Sequence[AcrossRow]) -> tuple[list[dict[str, str]], str]:
    """`across_cells` of summary.json's `across` read through its model (results.html)."""
    cells = [
        {
            "model": r.model,
            "required": "yes" if r.required else "no",
            "loaded": loaded_text({"agent": r.loaded.agent, "trigger": r.loaded.trigger}),
            "baseline": _rate({"passed": r.baseline.passed, "total": r.baseline.total}),
            "with_skill": _rate({"passed": r.with_skill.passed, "total": r.with_skill.total}),
            "effect": effect_text(
                None
                if r.effect is None
                else {"estimate": r.effect.estimate, "low": r.effect.low, "high": r.effect.high}
            ),
            "verdict": r.verdict,
        }
        for r in rows
    ]
    return cells, required_text([r.model for r in rows if r.required], len(rows)) if rows else ""


def table_row(row: Mapping[str, Any], cell: Any = md_text) -> str:
    """One row from its summary.json form; `cell` escapes the model's name for the format."""
    return (
        f"| {cell(str(row['model']))} | {'yes' if row.get('required') else 'no'} | {loaded_text(row.get('loaded'))} "
        f"| {_rate(row.get('baseline'))} | {_rate(row.get('withSkill'))} | {effect_text(row.get('effect'))} "
        f"| {row.get('verdict', '')} |"
    )


def loaded_text(loaded: Any) -> str:
    """How often the skill was loaded: agent runs with the skill and should-trigger calls."""
    if not isinstance(loaded, Mapping):
        return "–"
    parts = [f"{what} {k}/{n} ({round(100 * k / n)}%)" for what in ("agent", "trigger") if (v := loaded.get(what))
             for k, n in [v] if n]  # fmt: skip
    return ", ".join(parts) if parts else "–"


def _rate(arm: Any) -> str:
    if not isinstance(arm, Mapping) or not arm.get("total"):
        return "–"
    return f"{round(100 * arm['passed'] / arm['total'])}% ({arm['passed']}/{arm['total']})"


def effect_text(effect: Any) -> str:
    if not isinstance(effect, Mapping):
        return "–"
    return f"{pp(effect['estimate'] / 100)}pp ({pp(effect['low'] / 100)} to {pp(effect['high'] / 100)})"
