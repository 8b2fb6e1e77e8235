"""The gate's decision in words: the Release Gate section of a report (fixed strings) and the plain
reasons the result file and summary.json record."""

from __future__ import annotations

from skill_be.engine.gate import (
    BaselinePreferred,
    EvidenceBlock,
    FakeRun,
    Gate,
    Inconclusive,
    LineScore,
    NotHeldOn,
    RuleReason,
    ShortOfMinDelta,
    WorseThanPrevious,
    rule_key,
)
from skill_be.engine.gate import signed_pp as pp  # a fraction as signed whole points: 0.123 -> +12
from skill_be.engine.reasons import ZERO, ErrorCount, Reason, reasons
from skill_be.engine.stats import REPS_CAP, Interval
from skill_be.engine.trigger_scores import TriggerCheck
from skill_be.reports import fake
from skill_be.reports import strings as s
from skill_be.reports.pairwise import block_text
from skill_be.reports.quote import md_text, one_line
from skill_be.reports.triggers import check_line, trigger_bullets


def _id(text: str) -> str:
    """A scenario id inside the fixed strings' backticks: one line, no backtick to close the span."""
    return one_line(text, 300).replace("`", "'")


def reps_text(reps: int) -> str:
    return f"more than {REPS_CAP}" if reps > REPS_CAP else str(reps)


def decide_text(have: int, reps: int, top_up: bool = False, what: str = "") -> str:
    """What a reader must do when `have` reps per arm cannot decide and about `reps` would."""
    if reps > REPS_CAP:
        return s.CANNOT_TELL_FAR.format(have=have, what=what, cap=REPS_CAP)
    return s.CANNOT_TELL.format(have=have, what=what, reps=reps, top_up=s.TOP_UP_TOO if top_up else "")


def level_text(level: float) -> str:
    return f"{level:.4g}"


def release_gate_section(gate: Gate) -> list[str]:
    """The Release Gate section: the reference's lines, each followed by what skill-be adds."""
    out = [s.RELEASE_GATE_HEADING, ""]
    bullets: list[str] = []
    if gate.errors:
        line = (s.ERROR_LINE_WITH_TESTS if gate.has_tests else s.ERROR_LINE).format(n=gate.errors)
        bullets.append(line if gate.error_blocks else f"{line} Not blocking: gate.blockOnErrors is false.")
    if gate.levels.rule == "evidence":
        bullets += _evidence_bullets(gate)
    else:
        bullets += [s.BLOCKED_ZERO.format(scenario=_id(sc), line=md_text(line)) for sc, line in gate.zero]
        notes = {(n.score.scenario, n.score.model, n.score.line): n for n in gate.notes}
        for r in gate.regressions:
            bullets.append(
                s.BLOCKED_REGRESSION.format(
                    scenario=_id(r.scenario),
                    model=md_text(r.model),
                    line=md_text(r.line),
                    baseline=r.baseline,
                    with_skill=r.with_skill,
                    delta=s.signed(r.delta),
                )
            )
            note = notes.get((r.scenario, r.model, r.line))
            if note:
                have = min(note.score.baseline_total, note.score.with_skill_total)
                low, high = pp(note.interval.low), pp(note.interval.high)
                bullets.append(
                    s.NOISE_NOTE.format(low=low, high=high, decide=decide_text(have, note.reps))
                    if note.reps > have
                    else s.NOISE_NOTE_NEVER.format(low=low, high=high)
                )
    if gate.nothing_graded:
        bullets.append(s.BLOCKED_NOT_GRADED.format(scenarios=_id(", ".join(gate.ungraded))))
    bullets += trigger_bullets(gate.trigger)  # reports/triggers.py
    bullets += [f"- **BLOCKED** ({rule_key(r)}): {md_text(rule_text(r))}" for r in gate.rules.blocks]
    bullets += [f"- Warning ({rule_key(r)}): {md_text(rule_text(r))}" for r in gate.rules.warnings]
    extra = _rule_lines(gate)
    if gate.ready:
        bullets += _zero_seen_lines(gate)
        out += [*bullets, ""] if bullets else []
        out += [*extra, ""] if extra else []
        out.append(s.READY_LINE_ZERO_SEEN if gate.zero_seen else s.READY_LINE)
    else:
        out += [*bullets, ""]
        out += [*extra, ""] if extra else []
        out.append(s.NOT_READY_LINE)
    return out


def _zero_seen_lines(gate: Gate) -> list[str]:
    out = []
    threshold = round(gate.levels.zero_threshold * 100)
    for z in gate.zero_seen:
        sc, line = _id(z.scenario), md_text(z.line)
        if z.reps is None:
            out.append(s.ZERO_SEEN_OFF.format(scenario=sc, line=line))
        else:
            decide = decide_text(z.have, z.reps, what=f" it from {threshold}%")
            out.append(s.ZERO_SEEN.format(scenario=sc, line=line, decide=decide))
    return out


def _evidence_bullets(gate: Gate) -> list[str]:
    lines = [
        s.BLOCKED_ZERO_EVIDENCE.format(
            scenario=_id(sc), line=md_text(line), threshold=round(gate.levels.zero_threshold * 100)
        )
        for sc, line in gate.zero
    ]
    lines += [_block_line(gate, b) for b in gate.blocks]
    lines += [_inconclusive_line(gate, i) for i in gate.inconclusive]
    return lines


def _block_line(gate: Gate, b: EvidenceBlock) -> str:
    level = level_text(gate.levels.scenario_level if b.line is None else gate.levels.line_level)
    if b.line is None:
        return s.BLOCKED_SCENARIO.format(
            scenario=_id(b.scenario),
            model=md_text(b.model),
            delta=pp(b.interval.estimate),
            high=pp(b.interval.high),
            level=level,
        )
    score = b.score
    return s.BLOCKED_LINE.format(
        scenario=_id(b.scenario),
        model=md_text(b.model),
        line=md_text(b.line),
        baseline=score.baseline if score else "?",
        with_skill=score.with_skill if score else "?",
        delta=pp(b.interval.estimate),
        high=pp(b.interval.high),
        level=level,
    )


def _inconclusive_line(gate: Gate, i: Inconclusive) -> str:
    return s.INCONCLUSIVE.format(
        scenario=_id(i.scenario),
        model=md_text(i.model),
        what="the scenario's mean delta" if i.line is None else f'*"{md_text(i.line)}"*',
        delta=pp(i.interval.estimate),
        low=pp(i.interval.low),
        high=pp(i.interval.high),
        margin=_num(gate.levels.margin),
        decide=decide_text(i.have, i.reps, top_up=True),
        effect=s.INCONCLUSIVE_BLOCKS if gate.inconclusive_blocks else s.INCONCLUSIVE_PASSES,
    )


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _rule_lines(gate: Gate) -> list[str]:
    lv = gate.levels
    if lv.rule != "evidence":
        return []
    out = [
        s.RULE_EVIDENCE.format(
            alpha=lv.alpha,
            looks=f" and between {lv.looks} looks (--top-up; this is look {lv.look})" if lv.looks > 1 else "",
            scenarios=lv.scenario_tests,
            scenario_level=level_text(lv.scenario_level),
            lines=lv.line_tests,
            line_level=level_text(lv.line_level),
        )
    ]
    out += [top_up_line(t.scenario, t.model, t.reps_from, t.reps_to) for t in gate.top_up]
    return out


def top_up_line(scenario: str, model: str, reps_from: int, reps_to: int) -> str:
    return s.TOP_UP_LINE.format(
        scenario=_id(scenario),
        model=md_text(model),
        reps_from=reps_from,
        reps_to=reps_to,
        calls=2 * (reps_to - reps_from),
    )


def interval_text(iv: Interval) -> str:
    return f"{pp(iv.estimate)}pp [{pp(iv.low)}, {pp(iv.high)}]"


def gate_reasons(gate: Gate) -> list[str]:
    """The blocking reasons in plain words, for the result file and summary.json (engine/reasons.py
    gives them, in this order)."""
    return [reason_text(r) for r in reasons(gate)]


def recorded_reasons(gate: Gate) -> list[dict[str, str]]:
    """The blocking reasons as summary.json and the result file record them beside their words
    (`why`): kind, source and where each points; readers decide from these, never from the words."""
    return [r.to_json() for r in reasons(gate)]


def reason_text(r: Reason) -> str:
    """One reason in plain words (a test's name stays on one line)."""
    d = r.detail
    if isinstance(d, ErrorCount):
        return _errors_text(d)
    if r.kind == ZERO and r.scenario is not None and r.line is not None:
        return s.REASON_ZERO.format(scenario=r.scenario, line=one_line(r.line))
    if isinstance(d, LineScore):
        return s.REASON_REGRESSION.format(
            scenario=d.scenario,
            model=d.model,
            line=one_line(d.line),
            baseline=d.baseline,
            with_skill=d.with_skill,
            delta=s.signed(d.delta),
        )
    if isinstance(d, EvidenceBlock):
        what = "the scenario's mean delta" if d.line is None else f'"{one_line(d.line)}"'
        return f"regression (evidence): {d.scenario} / {d.model} — {what}: {pp(d.interval.estimate)}pp, below 0"
    if isinstance(d, Inconclusive):
        what = "the scenario's mean delta" if d.line is None else f'"{one_line(d.line)}"'
        decide = decide_text(d.have, d.reps, top_up=True)
        return f"inconclusive: {d.scenario} / {d.model} — {what}: {interval_text(d.interval)}; {decide}"
    if isinstance(d, TriggerCheck):
        return check_line(d)
    if isinstance(d, (ShortOfMinDelta, WorseThanPrevious, NotHeldOn, BaselinePreferred, FakeRun)):
        return rule_text(d)
    assert isinstance(d, tuple)  # NOT_GRADED: the scenarios
    return s.REASON_NOT_GRADED.format(scenarios=", ".join(d))


def _errors_text(e: ErrorCount) -> str:
    if e.triggers:
        return f"{e.n} trigger call(s) failed"
    what = (
        "error(s): outputs not generated or graded, or code tests not run"
        if e.has_tests
        else ("output(s) could not be generated or graded")
    )
    return f"{e.n} {what}"


def rule_text(r: RuleReason) -> str:
    """A gate.minDelta, gate.previous or gate.models reason in plain words."""
    if isinstance(r, NotHeldOn):
        return s.REASON_MODEL.format(model=r.model)
    if isinstance(r, BaselinePreferred):
        return block_text(r)
    if isinstance(r, FakeRun):
        return fake.BLOCK
    if isinstance(r, ShortOfMinDelta):
        if r.effect is None:
            return f"min delta: no scored line to measure the overall effect against {r.min_delta:g}pp"
        e = r.effect
        what = "its 95% lower bound" if r.rule == "evidence" else "it"
        return (
            f"min delta: the overall effect over no skill is {pp(e.estimate)}pp "
            f"({pp(e.low)} to {pp(e.high)}); {what} must reach {r.min_delta:g}pp (gate.minDelta)"
        )
    if r.line is not None and r.base is not None and r.head is not None:
        return (
            f'worse than {r.against}: {r.scenario} / {r.model} — "{r.line}": '
            f"{_rate(r.base)}% → {_rate(r.head)}% ({pp(_rate_f(r.head) - _rate_f(r.base))}pp)"
        )
    iv = r.interval or Interval(0.0, 0.0, 0.0)
    return (
        f"worse than {r.against} (evidence): {r.scenario} / {r.model} — the scenario's mean change "
        f"{pp(iv.estimate)}pp ({pp(iv.low)} to {pp(iv.high)}) is below 0"
    )


def _rate_f(counts: tuple[int, int]) -> float:
    return counts[0] / counts[1] if counts[1] else 0.0


def _rate(counts: tuple[int, int]) -> int:
    return round(100 * _rate_f(counts))
