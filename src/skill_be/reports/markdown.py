"""The Markdown report of one skill: header, a table per scenario and model, notes, the Release Gate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill_be.engine.agreement import overall_why, scenario_why
from skill_be.engine.gate import Gate, LineScore
from skill_be.engine.gate import signed_pp as pp
from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARM_WORDS, BASELINE, WITH_SKILL
from skill_be.engine.runner import SkillRun
from skill_be.engine.stats import LOW_SAMPLE_ANSWERS
from skill_be.reports import strings as s
from skill_be.reports.across import across_section
from skill_be.reports.agent import AGENT_NOTE, agent_lines
from skill_be.reports.evidence import evidence_lines
from skill_be.reports.gate import release_gate_section
from skill_be.reports.judge import agreement_line, split_lines
from skill_be.reports.pairwise import pairwise_lines
from skill_be.reports.quote import md_text
from skill_be.reports.triggers import trigger_section


@dataclass(frozen=True)
class Header:
    date: str  # YYYY-MM-DD
    models: Sequence[str]  # adapter:id of each model under test
    labels: Sequence[str]  # how tables name them
    reps: int
    gradings: int
    grader: str  # the grader's id
    grader_adapter: str
    judges: Sequence[str] = ()  # `grader` as a list: every judge's label


def grading_line(h: Header, graded: bool) -> str:
    if not graded:
        return s.GRADING_NONE
    if len(h.judges) > 1:
        return f"Grading: majority of {h.gradings} calls of each judge ({', '.join(h.judges)}) per output."
    return f"Grading: majority of {h.gradings} {h.grader} calls per output (via {h.grader_adapter})."


def given_notes(run: SkillRun) -> list[str]:
    """How the skill was given, per kind of scenario: in the prompt (one-shot, the reference's note),
    installed for the agent to find (agent scenarios)."""
    out = [s.NO_TOOLS_NOTE] if any(not sl.scenario.agent for sl in run.lines) else []
    return out + ([AGENT_NOTE] if any(sl.scenario.agent for sl in run.lines) else [])


def skill_report(run: SkillRun, h: Header, extra: Sequence[str] = ()) -> str:
    """`extra`: lines about the whole skill (its cost, the cache's share of its calls) before the gate."""
    graded = any(sl.scenario.criteria for sl in run.lines)
    out = [
        f"## {h.date} — {md_text(run.skill.name)} benchmark",
        "",
        f"Method: automated eval. Models: {', '.join(h.models)}. Reps: {h.reps}. {grading_line(h, graded)}",
        *given_notes(run),
    ]
    for sl in run.lines:
        sc = sl.scenario
        out += ["", f"### Scenario: {md_text(sc.id)}{' *(critical)*' if sc.critical else ''}", ""]
        out += [f"*{line.strip()}*" if line.strip() else "" for line in sc.prompt.strip().split("\n")]
        for label in h.labels:
            scores = [x for x in run.scores if x.scenario == sc.id and x.model == label]
            outputs = [o for o in run.outputs if o.scenario == sc.id and o.model == label]
            out += ["", f"**{label}**", ""]
            if not sc.graded:  # run for review: no table, no line
                out.append(s.NOT_GRADED_SCENARIO)
            else:
                out.append(s.TABLE_HEAD)
            out += [f"| {_cell(x.line)} | {x.baseline}% | {x.with_skill}% | {s.signed(x.delta)}pp |" for x in scores]
            out += interval_lines(run.gate, sc.id, label, scores)
            out += split_lines(run.judge, sc.id, label)  # the judge's own noise (reports/judge.py)
            out += agent_lines(outputs)  # agent scenarios (reports/agent.py); nothing for one-shot
            tokens = token_line(outputs)
            # Errors and notes may carry the answer's own text (a test's message, a runner's fatal
            # event): each is one quoted line, never Markdown of its own.
            notes = [f"- **{s.ERROR_TAG}** {md_text(e)}" for o in outputs for e in o.errors]
            notes += [f"- **{s.NOTE_TAG}** {md_text(n)}" for o in outputs for n in o.notes]
            if tokens or notes:
                out.append("")
            if tokens:
                out.append(tokens)
            out += notes
            out += evidence_lines(sc.criteria, outputs)  # grader.evidence (reports/evidence.py)
    fx = run.gate.effects
    if fx is not None and fx.scenarios:
        iv = fx.overall
        low = f", {s.LOW_SAMPLE}" if fx.low_sample else ""
        out += [
            "",
            s.OVERALL_LINE.format(
                seed=fx.seed, delta=pp(iv.estimate), low=pp(iv.low), high=pp(iv.high), label=iv.label, low_sample=low
            ),
        ]
        why = overall_why(fx)  # nested labels say why they differ
        out += [f"Why: {why}."] if why else []
    out += ["", *agreement_line(run.judge)] if run.judge is not None else []
    delta = fx.overall.estimate if fx is not None and fx.scenarios else None
    out += ["", *pairwise_lines(run.pairwise, delta)] if run.pairwise is not None else []  # reports/pairwise.py
    out += trigger_section(run.gate.trigger) if run.gate.trigger is not None else []  # reports/triggers.py
    out += ["", *extra] if extra else []
    table = across_section(run.gate.across)  # several models: one row each (reports/across.py)
    out += ["", *table] if table else []
    out += ["", "---", "", *release_gate_section(run.gate), ""]
    return "\n".join(out)


def interval_lines(gate: Gate, scenario: str, model: str, scores: Sequence[LineScore]) -> list[str]:
    """After a table: each line's delta and the scenario's mean delta with their 95% intervals."""
    fx = gate.effects
    if fx is None:
        return []
    pooled = next((e for e in fx.scenarios if e.scenario == scenario and e.model == model), None)
    if pooled is None:
        return []
    n = min(pooled.answers)
    low = f", {s.LOW_SAMPLE}" if n < LOW_SAMPLE_ANSWERS else ""
    out = ["", s.INTERVALS_HEAD.format(reps=f"{n} rep" + ("" if n == 1 else "s"), low=low)]
    for x in scores:
        iv = fx.lines.get((x.scenario, x.model, x.line))
        if iv is not None:
            out.append(
                s.INTERVAL_LINE.format(line=_cell(x.line), delta=pp(iv.estimate), low=pp(iv.low), high=pp(iv.high))
            )
    iv = pooled.interval
    out.append(s.SCENARIO_INTERVAL_LINE.format(delta=pp(iv.estimate), low=pp(iv.low), high=pp(iv.high), label=iv.label))
    why = scenario_why(fx, scenario, model)
    out += [f"  - why: {why}"] if why else []
    return out


def _cell(text: str) -> str:
    return md_text(text)


def mean_usage(outputs: Sequence[Output], arm: str) -> tuple[int, int] | None:
    known = [o.usage for o in outputs if o.arm == arm and o.usage and o.usage.input_tokens is not None]
    if not known:
        return None
    n = len(known)
    return (
        round(sum(u.input_tokens or 0 for u in known) / n),
        round(sum(u.output_tokens or 0 for u in known) / n),
    )


def token_line(outputs: Sequence[Output]) -> str:
    """What the skill costs: mean tokens per output in each arm, where the adapter reports them."""
    base, skill = mean_usage(outputs, BASELINE), mean_usage(outputs, WITH_SKILL)
    if base is None or skill is None:
        return ""
    extra = skill[0] - base[0]
    line = (
        f"Tokens per output (mean): baseline {base[0]} in, {base[1]} out; "
        f"with skill {skill[0]} in, {skill[1]} out ({s.signed(extra)} prompt tokens with the skill)."
    )
    return line + cache_words(outputs)


def cache_words(outputs: Sequence[Output]) -> str:
    """The prompt cache's part of the input, per arm that has one (mean per output): "" without,
    so the token line of a run that cached nothing is as it always was."""
    parts = []
    for arm in (BASELINE, WITH_SKILL):
        known = [o.usage for o in outputs if o.arm == arm and o.usage and o.usage.input_tokens is not None]
        read, written = sum(u.cache_read_tokens for u in known), sum(u.cache_write_tokens for u in known)
        if known and (read or written):
            n = len(known)
            parts.append(s.CACHED_INPUT.format(arm=ARM_WORDS[arm], read=round(read / n), written=round(written / n)))
    return f" {s.CACHED_INPUT_HEAD} {'; '.join(parts)}." if parts else ""
