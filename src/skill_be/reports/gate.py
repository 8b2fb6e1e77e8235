"""The gate's decision in words: the Release Gate section of a report (fixed strings) and the plain
reasons the result file and summary.json record."""

from __future__ import annotations

from skill_be.engine.gate import EvidenceBlock, Gate, Inconclusive
from skill_be.engine.gate import signed_pp as pp  # a fraction as signed whole points: 0.123 -> +12
from skill_be.engine.stats import REPS_CAP, Interval
from skill_be.reports import fake
from skill_be.reports import strings as s
from skill_be.reports.quote import md_text, one_line
from skill_be.reports.triggers import trigger_bullets, trigger_reasons


def _id(text: str) -> str:
    """A scenario id inside the fixed strings' backticks: one line, no backtick to close the span."""
    return one_line(text, 300).replace("`", "'")


def reps_text(reps: int) -> str:
    return f"more than {REPS_CAP}" if reps > REPS_CAP else str(reps)


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
                    s.NOISE_NOTE.format(low=low, high=high, reps=reps_text(note.reps), have=have)
                    if note.reps > have
                    else s.NOISE_NOTE_NEVER.format(low=low, high=high)
                )
    if gate.nothing_graded:
        bullets.append(s.BLOCKED_NOT_GRADED.format(scenarios=_id(", ".join(gate.ungraded))))
    bullets += trigger_bullets(gate.trigger)  # reports/triggers.py
    bullets += [f"- **BLOCKED** ({_rule_of(r)}): {md_text(r)}" for r in gate.rules.blocks]
    bullets += [f"- Warning ({_rule_of(r)}): {md_text(r)}" for r in gate.rules.warnings]
    extra = _rule_lines(gate)
    if gate.ready:
        out += [*bullets, ""] if bullets else []
        out += [*extra, ""] if extra else []
        out.append(s.READY_LINE)
    else:
        out += [*bullets, ""]
        out += [*extra, ""] if extra else []
        out.append(s.NOT_READY_LINE)
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
        reps=reps_text(i.reps),
        have=i.have,
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
    """The blocking reasons in plain words, for the result file and summary.json."""
    out: list[str] = []
    if gate.errors and gate.error_blocks:
        what = (
            "error(s): outputs not generated or graded, or code tests not run"
            if gate.has_tests
            else ("output(s) could not be generated or graded")
        )
        out.append(f"{gate.errors} {what}")
    # Plain records (the result file, summary.json, the terminal): a test's name stays on one line.
    out += [s.REASON_ZERO.format(scenario=sc, line=one_line(line)) for sc, line in gate.zero]
    out += [
        s.REASON_REGRESSION.format(
            scenario=r.scenario,
            model=r.model,
            line=one_line(r.line),
            baseline=r.baseline,
            with_skill=r.with_skill,
            delta=s.signed(r.delta),
        )
        for r in gate.regressions
    ]
    for b in gate.blocks:
        what = "the scenario's mean delta" if b.line is None else f'"{one_line(b.line)}"'
        out.append(f"regression (evidence): {b.scenario} / {b.model} — {what}: {pp(b.interval.estimate)}pp, below 0")
    if gate.inconclusive_blocks:
        for i in gate.inconclusive:
            what = "the scenario's mean delta" if i.line is None else f'"{one_line(i.line)}"'
            out.append(
                f"inconclusive: {i.scenario} / {i.model} — {what}: {interval_text(i.interval)}; "
                f"about {reps_text(i.reps)} reps per arm would decide it"
            )
    if gate.nothing_graded:
        out.append(s.REASON_NOT_GRADED.format(scenarios=", ".join(gate.ungraded)))
    return out + trigger_reasons(gate.trigger) + list(gate.rules.blocks)


def _rule_of(reason: str) -> str:
    """The config key behind a rule's reason (engine/gate.py Rules), or the fake run's adapter."""
    if reason.startswith(fake.REASON_PREFIX):
        return "adapter fake"
    return "gate.minDelta" if reason.startswith("min delta:") else "gate.previous"
