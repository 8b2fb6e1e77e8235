"""results.html: the run as one self-contained page (no script, nothing loaded), from summary.json
plus the answers and grader replies. A pure function; jinja2 escapes every answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_be import __version__


def render_html(summary: Mapping[str, Any], texts: Mapping[str, str], replies: Mapping[str, list[str]]) -> str:
    """`texts` maps an output's file (as in summary.json) to its answer, `replies` to its grader replies."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("skill_be.reports", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    skills = []
    for name, s in summary["skills"].items():
        scenarios = []
        for sc in s["scenarios"]:
            models = []
            for label, m in sc["models"].items():
                outputs = []
                for o in m["outputs"]:
                    key = o["file"] or f"{name}/{sc['id']}/{label}/{o['rep']}/{o['arm']}"
                    got = replies.get(key, [])
                    gradings = [{**g, "reply": got[i] if i < len(got) else ""} for i, g in enumerate(o["gradings"])]
                    outputs.append({**o, "text": texts.get(key), "gradings": gradings})
                models.append({"label": label, "lines": m["lines"], "outputs": outputs})
            scenarios.append({**sc, "models": models})
        skills.append({"name": name, **s, "scenarios": scenarios})
    ready = all(s["ready"] for s in skills)
    grader = summary.get("grader")
    graded = any(s["graded"] for s in skills)
    return env.get_template("results.html.j2").render(
        verdict="READY" if ready else "NOT READY",
        ready=ready,
        blocked=sum(1 for s in skills if not s["ready"]),
        skills=skills,
        started=summary.get("startedAt", ""),
        models=[m["label"] for m in summary.get("models", [])],
        grader=grader["label"] if grader and graded else None,
        reps=summary.get("reps"),
        gradings=summary.get("gradings"),
        version=__version__,
    )
