"""Labels that agree across levels: a line, its scenario's mean, the overall effect.

Each level's label comes from one definition (stats.effect_label; stats.low_sample for the flag).
Levels can still differ for real reasons (a mean pools lines, the overall pools scenarios); this
module says why wherever a parent's label differs from its parts', so a report never shows two
labels that contradict each other without the reason beside them."""

from __future__ import annotations

from skill_be.engine import stats
from skill_be.engine.gate import Effects

LINES_MOVE_TOGETHER = (
    "it counts answers, not lines, and the lines of one answer pass or fail together, so it has fewer "
    "independent samples than each line seems to have"
)
ONE_SCENARIO = "one scenario: its own interval, not a bootstrap across scenarios"


def scenario_why(fx: Effects, scenario: str, model: str) -> str | None:
    """Why the scenario mean's label differs from its lines' labels on this model."""
    mine = next((e for e in fx.scenarios if e.scenario == scenario and e.model == model), None)
    if mine is None:
        return None
    lines = [iv.label for (sc, m, _), iv in fx.lines.items() if sc == scenario and m == model]
    return stats.nested_why(mine.interval.label, lines, "lines", LINES_MOVE_TOGETHER)


def overall_why(fx: Effects) -> str | None:
    """Why the overall label differs from the scenarios' (each on each model); with one scenario, that."""
    why = stats.nested_why(fx.overall.label, [e.interval.label for e in fx.scenarios], "scenario means")
    if fx.one_scenario:
        return ONE_SCENARIO + (f"; {why}" if why else "")
    return why
