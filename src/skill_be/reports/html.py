"""results.html: the run as one self-contained page (no script, nothing loaded), from summary.json
plus the answers and grader replies. A pure function; jinja2 escapes every answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_be import __version__
from skill_be.engine.changes import COMPARED, Comparison
from skill_be.engine.stats import wilson
from skill_be.reports import strings
from skill_be.reports.across import typed_cells
from skill_be.reports.agent import agent_view
from skill_be.reports.evidence import evidence_view
from skill_be.reports.fake import PAGE_BANNER
from skill_be.reports.judge import html_notes, html_splits
from skill_be.reports.pairwise import preference_text
from skill_be.reports.pr_changes import marker
from skill_be.reports.quote import html_text, one_line

if TYPE_CHECKING:
    import jinja2  # imported when a page is rendered: start-up stays fast

    from skill_be.results.run_pages import AgentFiles
    from skill_be.results.summary_models import (
        IntervalSummary,
        LineSummary,
        OutputSummary,
        OverallEffect,
        PooledSummary,
        SkillSummary,
        SummaryModel,
        WhyRecord,
    )


def render_html(
    summary: SummaryModel | Mapping[str, Any],
    texts: Mapping[str, str],
    replies: Mapping[str, list[str]],
    base: Comparison | None = None,
    agents: Mapping[str, AgentFiles] | None = None,
) -> str:
    """The page of a run's summary.json, read through its model (a document as the run writes it is
    read through the model first: results/summary_file.typed_summary). `texts` maps an output's file
    (as in summary.json) to its answer, `replies` to its grader replies, `agents` to an agent rep's
    transcript and diff (reports/agent.py); `base`, a comparison with the base branch's result file,
    adds a column per line."""
    from skill_be.results.summary_file import typed_summary

    doc = typed_summary(summary)
    env = _environment()
    skills = [_skill(name, s, texts, replies, base, agents or {}) for name, s in doc.skills.items()]
    ready = all(s["ready"] for s in skills)
    graded = any(s["graded"] for s in skills)
    return env.get_template("results.html.j2").render(
        # a skill that could not be measured makes the run's banner ERROR
        verdict=strings.READY
        if ready
        else "ERROR"
        if any(s["verdict"] == "ERROR" for s in skills)
        else strings.NOT_READY,
        ready=ready,
        blocked=sum(1 for s in skills if not s["ready"]),
        skills=skills,
        started=doc.started_at or "",
        models=[m["label"] for m in doc.models or ()],
        grader=doc.grader["label"] if doc.grader and graded else None,
        reps=doc.reps,
        gradings=doc.gradings,
        version=__version__,
        base_name=base.label.split(" at ")[0] if base is not None and base.skills else "",
        fake=PAGE_BANNER if doc.fake_run else "",  # run --fake (reports/fake.py)
    )


def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("skill_be.reports", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    # Text from the answer's side (errors, notes, test names) is data: one line, escaped, in a
    # <code class="quoted">, never markup of the page's own (a forged verdict, a <details>).
    env.filters["oneline"] = one_line
    env.filters["quoted"] = _quoted
    return env


def _output(
    o: OutputSummary,
    key: str,
    criteria: Sequence[str],
    texts: Mapping[str, str],
    replies: Mapping[str, list[str]],
    agent: dict[str, Any] | None,
) -> dict[str, Any]:
    """One output as the template shows it: its answer, each grading with its reply, the criteria."""
    got = replies.get(key, [])
    gradings = [{"k": g.k, "error": g.error, "reply": got[i] if i < len(got) else ""} for i, g in enumerate(o.gradings)]
    evidence = _marked(evidence_view(criteria, o, texts.get(key)))  # reports/evidence.py
    return {
        "rep": o.rep,
        "arm": o.arm,
        "error": o.error,
        "verdicts": o.verdicts,
        "tests": o.tests,
        "errors": o.errors,
        "notes": o.notes,
        "text": texts.get(key),
        "gradings": gradings,
        "agent": agent,
        "evidence": evidence,
        "criteria_rows": evidence["rows"] if evidence else verdict_rows(criteria, o),
    }


def _skill(
    name: str,
    s: SkillSummary,
    texts: Mapping[str, str],
    replies: Mapping[str, list[str]],
    base: Comparison | None,
    agents: Mapping[str, AgentFiles],
) -> dict[str, Any]:
    """One skill of summary.json as the template shows it: each output with its answer and replies."""
    scenarios = []
    splits = html_splits(s.judge)
    blocks = blocking(name, s)
    targets = {b["href"].removeprefix("#") for b in blocks if b["href"]}
    for i, sc in enumerate(s.scenarios):
        models = []
        for j, (label, m) in enumerate(sc.models.items()):
            outputs = []
            for o in m.outputs:
                key = o.file or f"{name}/{sc.id}/{label}/{o.rep}/{o.arm}"
                agent = agent_view(o, name, sc.id, label, agents)  # reports/agent.py: agent scenarios
                outputs.append(_output(o, key, sc.criteria, texts, replies, agent))
            lines = _lines(name, (i, j), sc.id, label, m.lines, base, splits, targets)
            models.append(
                {"label": label, "lines": lines, "outputs": outputs, "pooled": _pooled(m.pooled)}
                | {"reps": rep_pairs(outputs)}
            )
        scenarios.append(
            {"id": sc.id, "critical": sc.critical, "prompt": sc.prompt, "models": models, "anchor": anchor(name, i)}
        )
    rows, note = typed_cells(s.across or ())  # reports/across.py: several models, a row each
    extra = s.model_extra or {}  # an ERROR skill's `verdict` and `cause` (reports/errors.py health_keys)
    return {
        "name": name,
        "ready": s.ready,
        "verdict": extra.get("verdict"),
        "cause": extra.get("cause"),
        "graded": s.graded,
        "errors": s.errors,
        "seconds": s.seconds,
        "reasons": s.reasons,
        "judge": s.judge,
        "triggers": s.triggers,
        "scenarios": scenarios,
        "moved": _moved(s.effect),
        "why": _why(s),
        "across_rows": rows,
        "across_note": note,
        "prefers": preference_text(s.pairwise),  # reports/pairwise.py
        "blocks": blocks,
    }


def _lines(
    name: str,
    at: tuple[int, int],
    scenario: str,
    label: str,
    lines: Sequence[LineSummary],
    base: Comparison | None,
    splits: Mapping[tuple[str, str, str], str],
    targets: set[str],
) -> list[dict[str, Any]]:
    """A scenario's score lines on one model (`at`: the scenario's and the model's positions)."""
    return [
        {
            "line": line.line,
            "baseline": line.baseline,
            "withSkill": line.with_skill,
            "delta": line.delta,
            "deltaInterval": line.delta_interval,
            **_bars(line),
            "vsBase": _vs_base(base, name, scenario, label, line),
            "judgeSplit": splits.get((scenario, label, line.line)),  # reports/judge.py
            "anchor": anchor(name, *at, k),
            "blocking": anchor(name, *at, k) in targets,
        }
        for k, line in enumerate(lines)
    ]


def anchor(skill: str, scenario: int, model: int | None = None, line: int | None = None) -> str:
    """The id of a scenario's heading (or of one of its score lines) on the page: by position, so
    any scenario id or criterion text makes a valid one."""
    out = f"skill-{skill}-sc-{scenario}"
    return out if model is None else f"{out}-m-{model}-l-{line}"


def blocking(name: str, s: SkillSummary) -> list[dict[str, str]]:
    """What blocks the skill, in the report's words (`reasons`), each with a link to the scenario or
    score line its record (`why`, the same order) points at; "" where it points at none."""
    why = s.why or []
    return [
        {"text": text, "href": _target(name, s, why[n] if n < len(why) else None)} for n, text in enumerate(s.reasons)
    ]


def _target(name: str, s: SkillSummary, w: WhyRecord | None) -> str:
    """The anchor a reason record points at: its line, else its scenario, else nothing."""
    if w is None:
        return ""
    for i, sc in enumerate(s.scenarios):
        if sc.id != w.scenario:
            continue
        for j, (label, m) in enumerate(sc.models.items()):
            if w.model in (None, label):
                for k, line in enumerate(m.lines):
                    if w.line is not None and line.line == w.line:
                        return "#" + anchor(name, i, j, k)
        return "#" + anchor(name, i)
    return ""


def verdict_rows(criteria: Sequence[str], o: OutputSummary) -> list[dict[str, Any]]:
    """Each criterion by its text with the verdict that counted and how many gradings said YES, for
    an output whose gradings gave no quotes (the evidence view has these rows with quotes)."""
    verdicts = o.verdicts or []
    if len(verdicts) < len(criteria):
        return []
    graded = [g.verdicts for g in o.gradings if g.verdicts is not None]
    return [
        {
            "criterion": c,
            "verdict": bool(verdicts[i]),
            "yes": sum(1 for v in graded if i < len(v) and v[i]),
            "n": len(graded),
            "quotes": [],
        }
        for i, c in enumerate(criteria)
    ]


def rep_pairs(outputs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The outputs by rep, each rep's baseline beside its with-skill answer (either may be missing)."""
    reps: dict[Any, dict[str, Any]] = {}
    for o in outputs:
        pair = reps.setdefault(o["rep"], {"rep": o["rep"], "baseline": None, "withSkill": None})
        pair["baseline" if o["arm"] == "baseline" else "withSkill"] = o
    return list(reps.values())


def _vs_base(base: Comparison | None, skill: str, scenario: str, model: str, line: LineSummary) -> Any:
    """A line's with-skill rate at the base and now, and the change with its interval."""
    change = base.skills.get(skill) if base is not None else None
    if change is None:
        return None
    x = next((x for x in change.lines if (x.scenario, x.model, x.line) == (scenario, model, line.line)), None)
    if x is None:
        return None
    if x.status != COMPARED or x.interval is None or x.base is None:
        return {"mark": "", "text": f"{x.status}: {x.why}"}
    iv = x.interval
    before = round(100 * x.base[0] / x.base[1]) if x.base[1] else 0
    text = f"{before}% → {line.with_skill}%, {100 * iv.estimate:+.0f}pp [{100 * iv.low:+.0f}, {100 * iv.high:+.0f}]"
    return {"mark": marker(iv), "text": text}


def _marked(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """The evidence view with its answer as markup: escaped by reports/evidence.py `marked`, quotes in <mark>."""
    import markupsafe

    if view is None or view["marked"] is None:
        return view
    return {**view, "marked": markupsafe.Markup(view["marked"])}  # escaped piece by piece


def _quoted(text: object) -> Any:
    import markupsafe

    return markupsafe.Markup(f'<code class="quoted">{html_text(one_line(text))}</code>')


def _signed(x: float) -> str:
    return f"{x:+.0f}"


def _bars(line: LineSummary) -> dict[str, Any]:
    """Each arm's rate with its 95% Wilson interval, and the delta with its interval, as percentages
    placed on 0-100 tracks (the delta's track runs from -100 to +100)."""
    counts = line.counts
    iv = line.delta_interval
    if not counts or not iv:
        return {"bars": None}

    def arm(passed: int, total: int) -> dict[str, float]:
        lo, hi = wilson(passed, total)
        return {"rate": 100 * passed / total if total else 0.0, "low": 100 * lo, "high": 100 * hi}

    return {
        "bars": {
            "baseline": arm(*counts.baseline),
            "withSkill": arm(*counts.with_skill),
            "delta": _delta(iv),
            "text": f"{_signed(iv.estimate)}pp [{_signed(iv.low)}, {_signed(iv.high)}]",
            "effect": line.effect or "",
        }
    }


def _delta(iv: IntervalSummary) -> dict[str, float]:
    """A delta in percentage points placed on a track from -100 (left) to +100 (right)."""
    return {"at": (iv.estimate + 100) / 2, "low": (iv.low + 100) / 2, "width": (iv.high - iv.low) / 2}


def _pooled(p: PooledSummary | None) -> dict[str, Any] | None:
    if not p:
        return None
    return {
        "answers": p.answers,
        "lowSample": p.low_sample,
        "effect": p.effect,
        "track": _delta(p),
        "text": f"{_signed(p.estimate)}pp [{_signed(p.low)}, {_signed(p.high)}]",
    }


def _moved(effect: OverallEffect | None) -> dict[str, Any] | None:
    """How the skill moved, for the overview: the overall delta, its interval and the label."""
    if not effect:
        return None
    return {
        "text": f"{_signed(effect.estimate)}pp [{_signed(effect.low)}, {_signed(effect.high)}]",
        "label": effect.label,
        "lowSample": effect.low_sample,
        "track": _delta(effect),
    }


def _why(s: SkillSummary) -> list[dict[str, str]]:
    """The verdict's reasons: what blocks, then what the gate noted without blocking."""
    out = [{"kind": "block", "text": r} for r in s.reasons]
    out += html_notes(s.judge)  # the judge's own noise (reports/judge.py)
    gate = s.gate
    for n in gate.noise:
        iv = n.interval
        more = f"; about {n.reps_to_decide} reps per arm would decide it" if n.reps_to_decide else ""
        out.append(
            {
                "kind": "note",
                "text": f'{n.scenario} / {n.model} — "{n.line}": within the noise, '
                f"95% interval {_signed(iv.low)} to {_signed(iv.high)}pp{more}",
            }
        )
    for i in gate.inconclusive:
        iv = i.interval
        what = "the scenario's mean" if i.line is None else f'"{i.line}"'
        more = f"; about {i.reps_to_decide} reps per arm would decide it (now {i.reps})" if i.reps_to_decide else ""
        out.append(
            {
                "kind": "note",
                "text": f"inconclusive: {i.scenario} / {i.model} — {what}: "
                f"{_signed(iv.estimate)}pp, 95% interval {_signed(iv.low)} to {_signed(iv.high)}pp{more}",
            }
        )
    for t in gate.top_up:
        out.append({"kind": "note", "text": f"top-up: {t.scenario} / {t.model} from {t.reps_from} to {t.reps_to} reps"})
    if gate.rule == "evidence":
        out.append(
            {
                "kind": "note",
                "text": f"rule: evidence (a false block under {gate.alpha} one-sided; "
                f"harm margin {gate.margin or 0:g}pp; "
                f"gate.inconclusive: {gate.on_inconclusive})",
            }
        )
    return out
