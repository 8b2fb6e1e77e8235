"""The triage report (triage-<time>.md) and the lines `skill-be triage` prints: pure functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_be.engine.triage import Triaged


def triage_lines(results: Sequence[Triaged], errors: Mapping[str, int]) -> list[str]:
    """The summary on stdout, one line per failure; the caller adds the report's path."""
    lines = [f"Triage: {len(results)} failure(s)"]
    for t in results:
        f = t.failure
        head = f'  {f.skill} [{f.scenario}] {f.model} "{f.line}"'
        lines.append(f"{head}: {t.proposal[0]} — {t.proposal[1]}" if t.proposal else f"{head}: unclassified ({t.why})")
    for name, n in errors.items():
        if n:
            lines.append(f"  {name}: {n} error(s) not triaged (they name no criterion)")
    return lines


def triage_report(results: Sequence[Triaged], errors: Mapping[str, int], run_name: str) -> str:
    out = [f"# Triage of {run_name}", "", "Each proposal is for a person to confirm; triage never blocks.", ""]
    for t in results:
        f = t.failure
        out += [f"## {f.skill} [{f.scenario}] {f.model}", "", f"*{f.line}* ({f.why})", ""]
        out.append(f"**Proposal:** {t.proposal[0]} — {t.proposal[1]}" if t.proposal else f"**Unclassified:** {t.why}")
        for i, s in enumerate(t.samples, 1):
            verdict = "no verdict" if s.passed is None else ("passed" if s.passed else "failed")
            out += ["", f"### Sample {i}: {verdict}", ""]
            out += [s.answer if s.answer is not None else f"(not generated: {s.error})"]
            if s.found is not None:  # grader.evidence: the quote the grader gave for this line
                shown = f'"{s.quote}"' if s.quote else "no quote"
                out += ["", f"Quote: {shown} ({'found in the answer' if s.found else 'evidence not found'})"]
            if s.evidence:
                out += ["", "Why:", "", s.evidence]
        if t.reply:
            out += ["", "### The classifier's reply", "", t.reply]
        out.append("")
    for name, n in errors.items():
        if n:
            out += [f"{name}: {n} error(s) of the run are not triaged: they name no criterion.", ""]
    return "\n".join(out)
