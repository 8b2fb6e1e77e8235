"""Trigger evals in words: the report's section (rates with intervals and counts, the confusion table),
the Release Gate's lines and reasons, the JUnit test cases and the `triggers` command's comparison."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from skill_be.engine.trigger_scores import (
    BLOCK,
    INCONCLUSIVE,
    MIN_RECALL,
    NONE,
    ModelTriggers,
    Rate,
    TriggerCheck,
    TriggerResult,
)
from skill_be.engine.triggers import query_id
from skill_be.project.triggers import NEAR, SHOULD, SHOULD_NOT

if TYPE_CHECKING:
    from skill_be.results.trigger_models import TriggerCallModel, TriggersModel

HEADING = "### Trigger evals"
KIND_WORDS = {SHOULD: "should", SHOULD_NOT: "shouldNot", NEAR: "near miss"}
KEY_WORDS = {MIN_RECALL: "recall", "maxFalseTrigger": "false-trigger rate"}


def rate_text(r: Rate) -> str:
    """`83% (5/6; 95% CI 44–97%)`, or `n/a (0 calls)`."""
    if not r.total:
        return "n/a (0 calls)"
    iv = r.interval()
    return f"{round(iv.estimate * 100)}% ({r.hits}/{r.total}; 95% CI {round(iv.low * 100)}–{round(iv.high * 100)}%)"


def _confusion(m: ModelTriggers, columns: Sequence[str]) -> list[str]:
    cols = [*columns, NONE]
    head = "| query kind | " + " | ".join(f"{c} (this skill)" if i == 0 else c for i, c in enumerate(cols)) + " |"
    out = [head, "|" + "---|" * (len(cols) + 1)]
    for kind, row in m.confusion.items():
        out.append(f"| {KIND_WORDS[kind]} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")
    return out


def trigger_section(t: TriggerResult) -> list[str]:
    """The report's section: per model, the three rates and which skill each kind of query loaded."""
    others = [n for n in t.offered[1:]]
    offered = f"{t.skill} beside {', '.join(others)}" if others else f"{t.skill} alone (no neighbour skill)"
    out = ["", HEADING, "", f"Offered: {offered}. Reps: {t.reps} per query."]
    for m in t.models:
        out += [
            "",
            f"**{m.model}**",
            "",
            f"- Recall (loaded on should): {rate_text(m.recall)}",
            f"- False-trigger rate (loaded on shouldNot): {rate_text(m.false_trigger)}",
            f"- Near-miss rate (loaded on near misses): {rate_text(m.near_miss)}",
        ]
        if m.errors:
            out.append(f"- {m.errors} trigger call(s) failed and are left out of the rates")
        if m.confusion:
            out += ["", *_confusion(m, t.offered)]
    known = [o.usage for o in t.observations if o.usage is not None and o.usage.input_tokens is not None]
    if known:
        t_in, t_out = sum(u.input_tokens or 0 for u in known), sum(u.output_tokens or 0 for u in known)
        out += ["", f"Trigger calls: {len(t.observations)}; tokens {t_in:,} in, {t_out:,} out ({len(known)} reported)."]
    failed = [o for o in t.observations if o.error]
    if failed:
        out += ["", *(f"- **Error:** {query_id(o.query)} / {o.model} rep {o.rep}: {o.error}" for o in failed[:20])]
    return out


def check_line(c: TriggerCheck) -> str:
    what = KEY_WORDS[c.key]
    side = "at least" if c.key == MIN_RECALL else "at most"
    head = f"trigger {what} on {c.model}: {rate_text(c.rate)}, needs {side} {c.threshold:g}%"
    if c.outcome == BLOCK:
        return f"{head}: blocks"
    if c.outcome == INCONCLUSIVE:
        return f"{head}: inconclusive; about {c.reps} reps per query would decide it"
    return f"{head}: holds"


def trigger_bullets(t: TriggerResult | None) -> list[str]:
    """The Release Gate's lines about triggers: every check, and failed trigger calls when they block."""
    if t is None:
        return []
    out: list[str] = []
    for c in t.checks:
        if c in t.blocking:
            out.append(f"- **BLOCKED** (triggers): {check_line(c)}")
        elif c.outcome == INCONCLUSIVE:
            out.append(f"- **INCONCLUSIVE** (triggers): {check_line(c)}. Not blocking: gate.inconclusive is pass.")
        else:
            out.append(f"- Triggers: {check_line(c)}")
    if t.errors and t.block_on_errors:
        out.append(f"- **BLOCKED** (triggers): {t.errors} trigger call(s) failed; they are not counted in the rates")
    return out


def junit_cases(skill: str, triggers: TriggersModel) -> list[ET.Element]:
    """A test case per query and model: a should query fails when its reps did not load the skill,
    a shouldNot query when they did (the case's text has the counts); failed calls are errors."""
    cases: list[ET.Element] = []
    groups: dict[tuple[str, str], list[TriggerCallModel]] = {}
    for c in triggers.calls or ():
        groups.setdefault((c.id, c.model), []).append(c)
    for (qid, model), calls in groups.items():
        kind = calls[0].kind
        answered = [c for c in calls if not c.error]
        me = (triggers.offered or [skill])[0]
        loaded = sum(1 for c in answered if c.loaded == me)
        case = ET.Element("testcase", name=f"trigger {qid}: {calls[0].query}", classname=f"{skill}.{model}")
        case.set("time", f"{sum(float(c.seconds or 0) for c in calls):.3f}")
        text = f"{KIND_WORDS.get(kind, kind)}: loaded {skill} in {loaded} of {len(answered)} calls"
        wrong = len(answered) - loaded if kind == SHOULD else loaded
        if wrong:
            why = f"{text}; expected {'every' if kind == SHOULD else 'none'}"
            ET.SubElement(case, "failure", message=why, type="trigger").text = why
        errors = [str(c.error) for c in calls if c.error]
        if errors and not wrong:
            ET.SubElement(
                case, "error", message=f"{len(errors)} trigger call(s) failed", type="error"
            ).text = "\n".join(errors)
        ET.SubElement(case, "system-out").text = text
        cases.append(case)
    return cases


def compare_lines(skill: str, now: TriggerResult, proposed: TriggerResult) -> list[str]:
    """`triggers --description`: both descriptions' rates side by side, and the difference."""
    out = [f"{skill}: current description vs proposed (reps {now.reps} per query)"]
    for a, b in zip(now.models, proposed.models, strict=True):
        out.append(f"  {a.model}:")
        for label, x, y in (
            ("recall", a.recall, b.recall),
            ("false-trigger rate", a.false_trigger, b.false_trigger),
            ("near-miss rate", a.near_miss, b.near_miss),
        ):
            if not x.total and not y.total:
                continue
            diff = round((y.estimate - x.estimate) * 100)
            out.append(f"    {label}: current {rate_text(x)}; proposed {rate_text(y)}; difference {diff:+d}pp")
    return out
