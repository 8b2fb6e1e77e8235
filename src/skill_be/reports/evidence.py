"""The judge's evidence (grader.evidence) in the reports: each criterion by its text, the verdict that
counted (the majority over gradings), and the quote each grading gave, found in the answer or not.
Pure functions: the Markdown lines from the engine's outputs, the HTML view from summary.json's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARM_WORDS
from skill_be.engine.verdicts import quote_span
from skill_be.reports.quote import html_text, md_code, md_text

if TYPE_CHECKING:
    from skill_be.results.summary_models import OutputSummary

NOT_FOUND = "evidence not found"
NO_QUOTE = "no quote"
EVIDENCE_HEAD = (
    "Evidence (each criterion: the verdict that counts, the majority over gradings, and each grading's quote):"
)


def has_evidence(outputs: Sequence[Output]) -> bool:
    return any(g.quotes is not None for o in outputs for g in o.gradings)


def evidence_lines(criteria: Sequence[str], outputs: Sequence[Output]) -> list[str]:
    """The Markdown detail of a scenario and model: one line per output and criterion; nothing when
    no grading gave quotes (the reference's report stays as it was)."""
    if not has_evidence(outputs):
        return []
    out = ["", EVIDENCE_HEAD]
    for o in outputs:
        graded = [g for g in o.gradings if g.verdicts is not None]
        if not graded or len(o.verdicts) < len(criteria):
            continue
        for i, text in enumerate(criteria):
            yes = sum(1 for g in graded if g.verdicts and g.verdicts[i])
            quotes = "; ".join(
                _md_quote(g.quotes[i] if g.quotes else None, bool(g.found and g.found[i])) for g in graded
            )
            out.append(
                f"- rep {o.rep} {ARM_WORDS.get(o.arm, o.arm)} — *{md_text(text)}*: "
                f"**{'YES' if o.verdicts[i] else 'NO'}** ({yes} of {len(graded)} gradings YES) — {quotes}"
            )
    return out


def _md_quote(quote: str | None, found: bool) -> str:
    if not quote:
        return f"({NO_QUOTE})"
    return md_code(quote) + ("" if found else f" ({NOT_FOUND})")


def evidence_view(criteria: Sequence[str], o: OutputSummary, text: str | None) -> dict[str, Any] | None:
    """results.html: an output's criteria with verdicts and quotes, and its answer as HTML with each
    found quote marked; None when its gradings gave no quotes."""
    graded = [(g.verdicts, g.evidence) for g in o.gradings if g.evidence and g.verdicts is not None]
    verdicts = o.verdicts or []
    if not graded or len(verdicts) < len(criteria):
        return None
    rows: list[dict[str, Any]] = []
    for i, c in enumerate(criteria):
        yes = sum(1 for v, _ in graded if v[i])
        quotes = [{"quote": e[i].quote, "found": e[i].found} for _, e in graded]
        rows.append({"criterion": c, "verdict": bool(verdicts[i]), "yes": yes, "n": len(graded), "quotes": quotes})
    found = [q["quote"] for r in rows for q in r["quotes"] if q["found"] and q["quote"]]
    return {"rows": rows, "marked": marked(text, found) if text is not None else None}


def marked(text: str, quotes: Sequence[str]) -> str:
    """`text` as HTML (escaped) with every found quote inside <mark>; overlapping quotes join."""
    spans = sorted(s for s in (quote_span(text, q) for q in quotes) if s is not None)
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    out, at = [], 0
    for start, end in joined:
        out += [html_text(text[at:start]), "<mark>", html_text(text[start:end]), "</mark>"]
        at = end
    out.append(html_text(text[at:]))
    return "".join(out)
