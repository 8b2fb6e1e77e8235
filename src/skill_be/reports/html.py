"""results.html: the run as one self-contained page (no script, nothing loaded), from summary.json
plus the answers and grader replies. A pure function; jinja2 escapes every answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skill_be import __version__
from skill_be.engine.changes import COMPARED, Comparison
from skill_be.engine.stats import wilson
from skill_be.reports import strings
from skill_be.reports.across import across_cells
from skill_be.reports.agent import agent_view
from skill_be.reports.evidence import evidence_view
from skill_be.reports.fake import PAGE_BANNER
from skill_be.reports.judge import html_notes, html_splits
from skill_be.reports.pairwise import preference_words
from skill_be.reports.pr_changes import marker
from skill_be.reports.quote import html_text, one_line

if TYPE_CHECKING:
    import jinja2  # imported when a page is rendered: start-up stays fast


def render_html(
    summary: Mapping[str, Any],
    texts: Mapping[str, str],
    replies: Mapping[str, list[str]],
    base: Comparison | None = None,
) -> str:
    """`texts` maps an output's file (as in summary.json) to its answer, `replies` to its grader
    replies; `base`, a comparison with the base branch's result file, adds a column per line."""
    env = _environment()
    skills = [_skill(name, s, texts, replies, base) for name, s in summary["skills"].items()]
    ready = all(s["ready"] for s in skills)
    grader = summary.get("grader")
    graded = any(s["graded"] for s in skills)
    return env.get_template("results.html.j2").render(
        # a skill that could not be measured makes the run's banner ERROR
        verdict=strings.READY
        if ready
        else "ERROR"
        if any(s.get("verdict") == "ERROR" for s in skills)
        else strings.NOT_READY,
        ready=ready,
        blocked=sum(1 for s in skills if not s["ready"]),
        skills=skills,
        started=summary.get("startedAt", ""),
        models=[m["label"] for m in summary.get("models", [])],
        grader=grader["label"] if grader and graded else None,
        reps=summary.get("reps"),
        gradings=summary.get("gradings"),
        version=__version__,
        base_name=base.label.split(" at ")[0] if base is not None and base.skills else "",
        fake=PAGE_BANNER if summary.get("fakeRun") else "",  # run --fake (reports/fake.py)
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


def _skill(
    name: str,
    s: Mapping[str, Any],
    texts: Mapping[str, str],
    replies: Mapping[str, list[str]],
    base: Comparison | None,
) -> dict[str, Any]:
    """One skill of summary.json as the template shows it: each output with its answer and replies."""
    scenarios = []
    splits = html_splits(s.get("judge"))
    for sc in s["scenarios"]:
        models = []
        for label, m in sc["models"].items():
            outputs = []
            for o in m["outputs"]:
                key = o["file"] or f"{name}/{sc['id']}/{label}/{o['rep']}/{o['arm']}"
                got = replies.get(key, [])
                gradings = [{**g, "reply": got[i] if i < len(got) else ""} for i, g in enumerate(o["gradings"])]
                agent = agent_view(o, name, sc["id"], label)  # reports/agent.py: agent scenarios
                evidence = _marked(evidence_view(sc["criteria"], o, texts.get(key)))  # reports/evidence.py
                outputs.append(
                    {**o, "text": texts.get(key), "gradings": gradings, "agent": agent, "evidence": evidence}
                )
            lines = [
                {
                    **line,
                    **_bars(line),
                    "vsBase": _vs_base(base, name, sc["id"], label, line),
                    "judgeSplit": splits.get((sc["id"], label, line["line"])),  # reports/judge.py
                }
                for line in m["lines"]
            ]
            models.append({"label": label, "lines": lines, "outputs": outputs, "pooled": _pooled(m.get("pooled"))})
        scenarios.append({**sc, "models": models})
    rows, note = across_cells(s.get("across") or ())  # reports/across.py: several models, a row each
    prefers = preference_words(s.get("pairwise"))  # reports/pairwise.py
    return {
        "name": name,
        **s,
        "scenarios": scenarios,
        "moved": _moved(s.get("effect")),
        "why": _why(s),
        "across_rows": rows,
        "across_note": note,
        "prefers": prefers,
    }


def _vs_base(base: Comparison | None, skill: str, scenario: str, model: str, line: Mapping[str, Any]) -> Any:
    """A line's with-skill rate at the base and now, and the change with its interval."""
    change = base.skills.get(skill) if base is not None else None
    if change is None:
        return None
    x = next((x for x in change.lines if (x.scenario, x.model, x.line) == (scenario, model, line["line"])), None)
    if x is None:
        return None
    if x.status != COMPARED or x.interval is None or x.base is None:
        return {"mark": "", "text": f"{x.status}: {x.why}"}
    iv = x.interval
    before = round(100 * x.base[0] / x.base[1]) if x.base[1] else 0
    text = f"{before}% → {line['withSkill']}%, {100 * iv.estimate:+.0f}pp [{100 * iv.low:+.0f}, {100 * iv.high:+.0f}]"
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


def _bars(line: Mapping[str, Any]) -> dict[str, Any]:
    """Each arm's rate with its 95% Wilson interval, and the delta with its interval, as percentages
    placed on 0-100 tracks (the delta's track runs from -100 to +100)."""
    counts = line.get("counts")
    iv = line.get("deltaInterval")
    if not counts or not iv:
        return {"bars": None}

    def arm(passed: int, total: int) -> dict[str, float]:
        lo, hi = wilson(passed, total)
        return {"rate": 100 * passed / total if total else 0.0, "low": 100 * lo, "high": 100 * hi}

    return {
        "bars": {
            "baseline": arm(*counts["baseline"]),
            "withSkill": arm(*counts["withSkill"]),
            "delta": _delta(iv),
            "text": f"{_signed(iv['estimate'])}pp [{_signed(iv['low'])}, {_signed(iv['high'])}]",
            "effect": line.get("effect", ""),
        }
    }


def _delta(iv: Mapping[str, float]) -> dict[str, float]:
    """A delta in percentage points placed on a track from -100 (left) to +100 (right)."""
    return {
        "at": (iv["estimate"] + 100) / 2,
        "low": (iv["low"] + 100) / 2,
        "width": (iv["high"] - iv["low"]) / 2,
    }


def _pooled(p: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not p:
        return None
    return {
        **p,
        "track": _delta(p),
        "text": f"{_signed(p['estimate'])}pp [{_signed(p['low'])}, {_signed(p['high'])}]",
    }


def _moved(effect: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """How the skill moved, for the overview: the overall delta, its interval and the label."""
    if not effect:
        return None
    return {
        "text": f"{_signed(effect['estimate'])}pp [{_signed(effect['low'])}, {_signed(effect['high'])}]",
        "label": effect["label"],
        "lowSample": effect.get("lowSample", False),
        "track": _delta(effect),
    }


def _why(s: Mapping[str, Any]) -> list[dict[str, str]]:
    """The verdict's reasons: what blocks, then what the gate noted without blocking."""
    out = [{"kind": "block", "text": r} for r in s.get("reasons", [])]
    out += html_notes(s.get("judge"))  # the judge's own noise (reports/judge.py)
    gate = s.get("gate", {})
    for n in gate.get("noise", []):
        iv = n["interval"]
        reps = n.get("repsToDecide")
        more = f"; about {reps} reps per arm would decide it" if reps else ""
        out.append(
            {
                "kind": "note",
                "text": f'{n["scenario"]} / {n["model"]} — "{n["line"]}": within the noise, '
                f"95% interval {_signed(iv['low'])} to {_signed(iv['high'])}pp{more}",
            }
        )
    for i in gate.get("inconclusive", []):
        iv = i["interval"]
        what = "the scenario's mean" if i["line"] is None else f'"{i["line"]}"'
        reps = i.get("repsToDecide")
        more = f"; about {reps} reps per arm would decide it (now {i['reps']})" if reps else ""
        out.append(
            {
                "kind": "note",
                "text": f"inconclusive: {i['scenario']} / {i['model']} — {what}: "
                f"{_signed(iv['estimate'])}pp, 95% interval {_signed(iv['low'])} to {_signed(iv['high'])}pp{more}",
            }
        )
    for t in gate.get("topUp", []):
        out.append(
            {"kind": "note", "text": f"top-up: {t['scenario']} / {t['model']} from {t['from']} to {t['to']} reps"}
        )
    if gate.get("rule") == "evidence":
        out.append(
            {
                "kind": "note",
                "text": f"rule: evidence (a false block under {gate.get('alpha')} one-sided; "
                f"harm margin {gate.get('margin', 0):g}pp; "
                f"gate.inconclusive: {gate.get('onInconclusive')})",
            }
        )
    return out
