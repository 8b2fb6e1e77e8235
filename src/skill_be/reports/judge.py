"""The judge's own noise in words (engine/judge_noise.py): per line the share of answers whose
gradings split, the flag on a line that splits too often, and the skill's agreement figure. The
Markdown lines from the engine's values, summary.json's section, and the HTML's from that section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skill_be.engine.judge_noise import JudgeNoise, SplitLine
from skill_be.reports.quote import md_text

if TYPE_CHECKING:
    from skill_be.results.summary_models import JudgeSummary

SAME_FAMILY = (
    "the judge {judge} and the model under test {model} are both {family} models: a judge tends to favour its "
    "own family's answers; name a judge of another family, or add one (grader as a list; docs/guide/judge.md)"
)
NOISY = "the judge disagrees with itself on {split} of {answers} answers: sharpen the criterion"
SPLITS_HEAD = "Judge's gradings split (answers whose gradings disagree):"
AGREEMENT = "Judge agreement: {pct}% ({agreed} of {graded} graded criteria had every grading agree){flagged}."


def _pct(x: float) -> int:
    return round(100 * x)


def noisy_words(split: int, answers: int) -> str:
    return NOISY.format(split=split, answers=answers)


def split_lines(noise: JudgeNoise | None, scenario: str, model: str) -> list[str]:
    """After a scenario's table: each criterion's split share, then a NOTE per flagged line."""
    mine = [x for x in (noise.lines if noise else ()) if x.scenario == scenario and x.model == model]
    if not mine:
        return []
    shares = ", ".join(f"*{md_text(x.line)}* {x.split} of {x.answers} ({_pct(x.share)}%){_apart(x)}" for x in mine)
    out = ["", f"{SPLITS_HEAD} {shares}"]
    out += [f'- **NOTE** *"{md_text(x.line)}"*: {noisy_words(x.split, x.answers)}' for x in mine if x.flagged]
    return out


def _apart(x: SplitLine) -> str:
    return f"; the judges disagree on {x.judges_apart} of {x.judged}" if x.judged else ""


def agreement_line(noise: JudgeNoise | None) -> list[str]:
    """The skill's agreement figure, beside its overall effect."""
    if noise is None:
        return []
    n = len(noise.flagged)
    flagged = f"; {n} line(s) split on more than {_pct(noise.threshold)}% of their answers" if n else ""
    return [AGREEMENT.format(pct=_pct(noise.agreement), agreed=noise.agreed, graded=noise.graded, flagged=flagged)]


def _line(x: SplitLine) -> dict[str, object]:
    return {
        "scenario": x.scenario,
        "model": x.model,
        "line": x.line,
        "split": x.split,
        "answers": x.answers,
        "share": round(x.share, 3),
        "flagged": x.flagged,
        **({"judgesApart": x.judges_apart, "judged": x.judged} if x.judged else {}),
    }


def judge_json(noise: JudgeNoise | None) -> dict[str, object]:
    """summary.json's `judge` section of a skill; absent with one grading per answer."""
    if noise is None:
        return {}
    return {
        "judge": {
            "agreement": round(noise.agreement, 3),
            "agreed": noise.agreed,
            "graded": noise.graded,
            "maxSplitShare": noise.threshold,
            "lines": [_line(x) for x in noise.lines],
        }
    }


def html_splits(judge: JudgeSummary | None) -> dict[tuple[str, str, str], str]:
    """results.html: (scenario, model, line) -> the words shown under a criterion's line."""
    out: dict[tuple[str, str, str], str] = {}
    for x in judge.lines if judge else ():
        words = f"gradings split on {x.split} of {x.answers} answers"
        if x.judged:
            words += f"; the judges disagree on {x.judges_apart} of {x.judged}"
        out[(x.scenario, x.model, x.line)] = noisy_words(x.split, x.answers) if x.flagged else words
    return out


def html_notes(judge: JudgeSummary | None) -> list[dict[str, str]]:
    """results.html: the agreement figure and each flagged line, among the skill's notes."""
    if not judge:
        return []
    out = [{"kind": "note", "text": f"judge agreement {_pct(judge.agreement)}% over {judge.graded} graded criteria"}]
    out += [
        {"kind": "note", "text": f'{x.scenario} / {x.model} — "{x.line}": {noisy_words(x.split, x.answers)}'}
        for x in judge.lines
        if x.flagged
    ]
    return out
