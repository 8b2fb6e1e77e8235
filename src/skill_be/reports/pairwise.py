"""The blind side-by-side comparison in words (engine/pairwise.py): the skill's preference rate with
its interval beside the pass-rate delta, in Markdown, summary.json and results.html."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_be.engine.gate import BaselinePreferred
from skill_be.engine.pairwise import Comparison, preference

if TYPE_CHECKING:
    from skill_be.results.summary_models import PairwiseSummary

PREFERS = "prefers the skill's answer: {rate}%, {low} to {high}%"
PAIRWISE_LINE = (
    "Blind A/B (compare.pairwise; the judge saw each rep's two answers as A and B in a random order): "
    "the judge {prefers} ({wins} of {decided} decided criteria over {pairs} pairs; {ties} ties){delta}."
)
GATE_BLOCK = (
    "blind A/B: the judge prefers the baseline's answer (the skill's {rate}%, 95% interval {low} to {high}%, "
    "all below 50%; compare.pairwiseGate)"
)
NOTHING_DECIDED = "Blind A/B (compare.pairwise): the judge preferred neither answer on every criterion."


def _pct(x: float) -> int:
    return round(100 * x)


def pairwise_lines(comparisons: Sequence[Comparison] | None, delta: float | None) -> list[str]:
    """The report's line, beside the overall effect (`delta`: its estimate, a share, when there is one)."""
    if comparisons is None:
        return []
    p = preference(comparisons)
    if p is None:
        return [NOTHING_DECIDED]
    prefers = PREFERS.format(rate=_pct(p.rate), low=_pct(p.low), high=_pct(p.high))
    beside = f", beside the pass-rate delta {100 * delta:+.1f}pp" if delta is not None else ""
    failed = sum(1 for c in comparisons if c.error)
    line = PAIRWISE_LINE.format(
        prefers=prefers, wins=p.wins, decided=p.wins + p.losses, pairs=p.pairs, ties=p.ties, delta=beside
    )
    return [line, *([f"{failed} comparison(s) failed and are left out."] if failed else [])]


def pairwise_json(comparisons: Sequence[Comparison] | None) -> dict[str, object]:
    """summary.json's `pairwise` section of a skill: the rate (percent) and every comparison's order."""
    if comparisons is None:
        return {}
    p = preference(comparisons)
    rate = None
    if p is not None:
        rate = {
            "estimate": round(100 * p.rate, 1),
            "low": round(100 * p.low, 1),
            "high": round(100 * p.high, 1),
            "wins": p.wins,
            "losses": p.losses,
            "ties": p.ties,
            "pairs": p.pairs,
        }
    return {
        "pairwise": {
            "preference": rate,
            "comparisons": [
                {
                    "scenario": c.scenario,
                    "model": c.model,
                    "rep": c.rep,
                    "a": c.a,
                    "preferred": list(c.preferred),
                    "error": c.error,
                }
                for c in comparisons
            ],
        }
    }


def preference_words(section: Mapping[str, Any] | None) -> str | None:
    """The preference rate and interval in words (results.html, the PR comment), None without a comparison."""
    p = (section or {}).get("preference")
    if not p:
        return None
    return PREFERS.format(rate=round(p["estimate"]), low=round(p["low"]), high=round(p["high"]))


def preference_text(section: PairwiseSummary | None) -> str | None:
    """`preference_words` of summary.json's `pairwise` read through its model (results.html)."""
    p = section.preference if section is not None else None
    if p is None:
        return None
    return PREFERS.format(rate=round(p.estimate), low=round(p.low), high=round(p.high))


def block_text(b: BaselinePreferred) -> str:
    """compare.pairwiseGate's block in plain words."""
    return GATE_BLOCK.format(rate=_pct(b.rate), low=_pct(b.low), high=_pct(b.high))
