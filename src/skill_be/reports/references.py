"""What `check --graders` prints: one line per line of a reference answer that disagrees with its
`expect`, then the Result line; and its dry run's plan. Pure functions of engine/references.py's values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_be.engine.gate import TEST_PREFIX
from skill_be.engine.references import Disagreement, ReferencePlan
from skill_be.reports import strings as s
from skill_be.reports.quote import one_line


def _word(v: bool | None) -> str:
    return "no result" if v is None else "YES" if v else "NO"


def disagreement_line(d: Disagreement, replies: str | None) -> str:
    """`evals/x.json:9:17: scenarios[0].references[1]: scenario "split", reference 2, criterion
    "Uses allocate": expected YES, the judge gave NO (gradings NO, NO, YES); replies in <folder>`."""
    c = d.checked
    head = f'{c.reference.where}: scenario "{c.scenario}", reference {c.reference.number}'
    if d.kind == "test":
        name = d.line[len(TEST_PREFIX) :]
        if d.got is None:
            return f'{head}, code test "{name}": expected {"to pass" if d.expected else "to fail"}, {one_line(d.why)}'
        if d.expected:
            why = f" ({one_line(d.why, 200)})" if d.why else ""
            return f'{head}: code test "{name}" fails on a reference that must pass it: a broken test?{why}'
        return f'{head}: code test "{name}" passes on a reference that must fail it: the test does not catch it'
    if d.kind == "assertion":
        return f'{head}, assertion "{one_line(d.line)}": expected {_word(d.expected)}, got {_word(d.got)}'
    said = ", ".join("failed" if g.verdicts is None else _word(g.verdicts[d.index]) for g in c.output.gradings)
    kept = f"; replies in {replies}" if replies else ""
    got = f"the judge gave {_word(d.got)}" if d.got is not None else one_line(d.why)
    return f'{head}, criterion "{one_line(d.line)}": expected {_word(d.expected)}, {got} (gradings {said}){kept}'


def result_lines(
    found: Sequence[Disagreement], references: int, replies: Mapping[tuple[str, str, int], str]
) -> list[str]:
    """Every disagreeing line (`replies`: (skill, scenario, reference number) -> where its judge's
    replies are kept), then the Result line."""
    lines = [disagreement_line(d, replies.get(_key(d))) for d in found]
    if found:
        blocker = s.REFERENCES_BLOCKER.format(found=len(found), n=references)
        lines.append(s.RESULT_BLOCKED.format(blockers=blocker))
    else:
        lines.append(s.REFERENCES_PASS.format(n=references))
    return lines


def plan_lines(p: ReferencePlan, gradings: int, grader: str) -> list[str]:
    cost = "no price for the grader in pricing" if p.cost is None else f"estimated cost ${p.cost:,.4f}"
    return [
        "Dry run: nothing is called; check --graders would make:",
        f"  {p.references} reference answer(s), graded {gradings} time(s) each by {grader}: {p.calls} grader calls; "
        f"about {p.tokens.input:,} input and {p.tokens.output:,} output tokens; {cost}",
    ]


def _key(d: Disagreement) -> tuple[str, str, int]:
    return (d.checked.skill, d.checked.scenario, d.checked.reference.number)
