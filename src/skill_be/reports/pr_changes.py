"""The reviewer's half of the PR comment: how each skill moved against the base branch and against no
skill, each as `+12pp (+3 to +21)` with its label, the lines sorted by how far they moved with a noise
marker, and trigger rates before and after. Pure functions of a `Comparison` (engine/changes.py) and
the view's rows; pr_comment.py places them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from skill_be.engine.changes import (
    COMPARED,
    NEW,
    SKILL_NEW,
    SKILL_NO_HEAD,
    SKILL_NO_SCORES,
    Comparison,
    LineChange,
    SkillChange,
    overall,
    reps_text,
    reps_to_decide_line,
)
from skill_be.engine.gate import signed_pp as pp  # the one signed-points format
from skill_be.engine.stats import LOW_SAMPLE_ANSWERS, Interval, newcombe
from skill_be.reports import strings
from skill_be.reports.quote import md_text

UP, DOWN, NOISE = "▲", "▼", "≈"
NOISE_WORDS = "within the noise"


def effect_text(iv: Interval | None, low_sample: bool = False) -> str:
    """`+12pp (+3 to +21), better`; `low sample` is added when an arm has few answers."""
    if iv is None:
        return "–"
    low = ", low sample" if low_sample else ""
    return f"{pp(iv.estimate)}pp ({pp(iv.low)} to {pp(iv.high)}), {iv.label}{low}"


def marker(iv: Interval | None) -> str:
    """▲ / ▼ when the interval leaves 0, ≈ when the change is within the noise."""
    if iv is None:
        return ""
    if iv.low > 0:
        return UP
    if iv.high < 0:
        return DOWN
    return NOISE


def base_name(c: Comparison) -> str:
    """How a column names the base: its branch (the label's first word)."""
    return c.label.split(" at ")[0] or "base"


def skill_effects(
    name: str, change: SkillChange | None, c: Comparison | None, rows_effect: Interval | None, low: bool
) -> str:
    """A skill's line under the heading: against the base, then against no skill."""
    parts: list[str] = []
    if c is not None:
        parts.append(f"vs {md_text(base_name(c))}: {_vs_base(change, c)}")
    vs_none = change.vs_baseline if change is not None and change.vs_baseline is not None else rows_effect
    low = low or (change.low_sample if change is not None else False)
    parts.append(f"vs no skill: {effect_text(vs_none, low)}")
    return " · ".join(parts)


def _vs_base(change: SkillChange | None, c: Comparison) -> str:
    if change is None:
        return "not compared" + (f" ({md_text(c.note)})" if c.note else "")
    if change.status == SKILL_NEW:
        return "new skill (the base does not have it)"
    if change.status == SKILL_NO_SCORES:
        before = {True: strings.READY, False: strings.NOT_READY, None: "no verdict"}[change.base_ready]
        return f"the base recorded no scores (verdict then: {before})"
    if change.status == SKILL_NO_HEAD:
        return "this branch recorded no scores"
    if change.vs_base is None:
        return "no line comparable (the eval changed)"
    return effect_text(change.vs_base)


def moved(c: Comparison | None, verdicts_now: Mapping[str, bool | None]) -> bool:
    """Whether anything moved beyond its noise against the base, or a verdict changed: what
    `comment-mode: changes` posts on. With no comparison, everything counts as a change."""
    if c is None or not c.skills:
        return True
    for name, s in c.skills.items():
        if s.status in (SKILL_NEW, SKILL_NO_SCORES) or s.base_ready != verdicts_now.get(name, s.head_ready):
            return True
        if any(x.moved or x.status != COMPARED for x in s.lines):
            return True
    return False


def moved_skill(s: SkillChange) -> bool:
    return any(x.moved for x in s.lines)


def changes_table(change: SkillChange, c: Comparison) -> list[str]:
    """Every line against the base, the ones that moved most first; not comparable ones last."""
    if not change.lines:
        return []
    name = md_text(base_name(c))
    out = [
        f"Against {md_text(c.label)}: with-skill pass rate per line, change with its 95% interval.",
        "",
        f"| | Scenario | Line | Model | {name} | This branch | Change |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    order = sorted(change.lines, key=_movement)
    for x in order:
        out.append(
            f"| {_mark(x)} | {_scenario(x.scenario, x.critical)} | {md_text(x.line)} | {md_text(x.model)} | "
            f"{_rate(x.base)} | {_rate(x.head)} | {_change(x)} |"
        )
    return [*out, ""]


def _movement(x: LineChange) -> tuple[int, float]:
    if x.status != COMPARED or x.interval is None:
        return (1, 0.0)
    return (0, -abs(x.interval.estimate))


def _mark(x: LineChange) -> str:
    return marker(x.interval) if x.status == COMPARED else ""


def _scenario(sid: str, critical: bool) -> str:
    return md_text(sid) + (" *(critical)*" if critical else "")


def _rate(counts: tuple[int, int] | None) -> str:
    if counts is None or counts[1] == 0:
        return "–"
    return f"{round(100 * counts[0] / counts[1])}% ({counts[0]}/{counts[1]})"


def _change(x: LineChange) -> str:
    if x.status == NEW:
        return f"new: {md_text(x.why)}"
    if x.status != COMPARED or x.interval is None:
        return f"not comparable: {md_text(x.why)}"
    iv = x.interval
    text = f"{pp(iv.estimate)}pp ({pp(iv.low)} to {pp(iv.high)})"
    if iv.contains(0.0):
        text += f", {NOISE_WORDS}"
        if x.reps_to_decide is not None and iv.estimate != 0:
            text += f"; about {reps_text(x.reps_to_decide)} reps per arm would decide it"
    return text


def row_interval(baseline_n: str, with_skill_n: str) -> tuple[Interval, int] | None:
    """A line's delta against no skill from its "k/n" counts, with the reps that would decide it."""
    b, s = _kn(baseline_n), _kn(with_skill_n)
    if b is None or s is None:
        return None
    return newcombe(b[0], b[1], s[0], s[1]), reps_to_decide_line(b, s)


def _kn(text: str) -> tuple[int, int] | None:
    k, _, n = text.partition("/")
    return (int(k), int(n)) if k.isdigit() and n.isdigit() and int(n) > 0 else None


def rows_effect(tables: Sequence[Any]) -> tuple[Interval | None, bool]:
    """A skill's overall effect against no skill from its tables' rows (engine/changes.py's
    estimate), and whether an arm has few answers."""
    items: list[tuple[str, str, tuple[int, int], tuple[int, int]]] = []
    low = False
    for t in tables:
        for r in t.rows:
            b, s = _kn(r.baseline_n), _kn(r.with_skill_n)
            if b is None or s is None:
                continue
            low = low or min(b[1], s[1]) < LOW_SAMPLE_ANSWERS
            items.append((r.scenario, t.model, b, s))
    return overall(items), low


def usage_line(base: Any, head: Any, base_name: str, ours: str = "this PR", dollar: str = "$") -> str | None:
    """`Tokens: the skill adds +1,240 input tokens per answer (main: +980; this PR: +260) · cost
    +$0.004 per answer (+$0.001)`, from the result files' `usage`; None when this side recorded none.
    `dollar` is `\\$` in Markdown, where two dollars could open math."""
    now = _extra(head)
    if now is None:
        return None
    then = _extra(base)
    tokens, cost = now
    if then is None:
        where = f"not recorded at {base_name}"
    else:
        where = f"{base_name}: {_count(then[0])}; {ours}: {_count(tokens - then[0])}"
    line = f"Tokens: the skill adds {_count(tokens)} input tokens per answer ({where})"
    if cost is not None:
        line += f" · cost {_usd(cost, dollar)} per answer"
        line += f" ({_usd(cost - then[1], dollar)})" if then is not None and then[1] is not None else ""
    line += _cached(head)
    estimated = isinstance(head, dict) and head.get("estimated") is True
    return line + (" (tokens estimated from characters)" if estimated else "")


def _cached(usage: Any) -> str:
    """` · with the skill, of its input per answer: 9,000 cache read, 1,100 cache write`: the part of
    the with-skill arm's input the provider's prompt cache served, where the result file records one."""
    arm = usage.get("withSkill") if isinstance(usage, dict) else None
    if not isinstance(arm, dict):
        return ""
    counts = [
        (arm.get(key), word)
        for key, word in (("cacheReadTokens", strings.CACHE_READ_WORD), ("cacheWriteTokens", strings.CACHE_WRITE_WORD))
    ]
    parts = [f"{round(n):,} {word}" for n, word in counts if _num(n) and n]
    return f" · {strings.CACHED_PER_ANSWER}: {', '.join(parts)}" if parts else ""


def _extra(usage: Any) -> tuple[float, float | None] | None:
    """What the skill adds to one answer: input tokens, and cost when both arms are priced."""
    if not isinstance(usage, dict):
        return None
    arms = [usage.get("baseline"), usage.get("withSkill")]
    if not all(isinstance(a, dict) and _num(a.get("inputTokens")) for a in arms):
        return None
    b, w = arms
    costs = [a.get("costUsd") for a in (b, w)]  # type: ignore[union-attr]
    cost = costs[1] - costs[0] if all(_num(c) for c in costs) else None
    return w["inputTokens"] - b["inputTokens"], cost  # type: ignore[index]


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _count(x: float) -> str:
    return f"{round(x):+,}"


def _usd(x: float, dollar: str) -> str:
    """A signed amount with two significant digits at least (a cent's hundredths per answer are common)."""
    size = abs(x)
    places = 2 if size >= 1 else min(8, max(3, 1 - math.floor(math.log10(size)))) if size else 3
    return f"{'-' if x < 0 else '+'}{dollar}{size:,.{places}f}"


def triggers_table(before: Any, after: Any, base: str) -> list[str]:
    """Trigger rates per model (summary.json's or the result file's `triggers`), before and after."""
    now = _rates(after)
    if not now:
        return []
    then = _rates(before)
    name = md_text(base)
    out = [
        "Trigger rates (share of queries that loaded the skill):",
        "",
        f"| Model | Should trigger ({name} → now) | Should not ({name} → now) | Near misses ({name} → now) |",
        "| --- | --- | --- | --- |",
    ]
    for model, rates in now.items():
        old = then.get(model, {})
        cells = [f"{_pct(old.get(k))} → {_pct(rates.get(k))}" for k in ("recall", "falseTrigger", "nearMiss")]
        out.append(f"| {md_text(model)} | " + " | ".join(cells) + " |")
    return [*out, ""]


def _rates(doc: Any) -> dict[str, dict[str, Any]]:
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, dict):
        return {}
    return {str(m): v for m, v in models.items() if isinstance(v, dict)}


def _pct(rate: Any) -> str:
    if not isinstance(rate, dict) or not isinstance(rate.get("percent"), int | float):
        return "–"
    total = rate.get("total")
    return f"{rate['percent']:g}%" + (f" ({rate.get('hits')}/{total})" if isinstance(total, int) else "")
