"""Triage: which failures to look at, what the classifier is asked, and reading its answer."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skill_be.reports.strings import TEST_PREFIX

CATEGORIES = ("skill gap", "eval too strict", "grader error", "model choice")
TEST_CATEGORIES = ("skill gap", "eval too strict", "test error", "model choice")
_CATEGORY = re.compile(r"^\W*category\W*:\s*\**\s*([a-z ]+?)\s*\**\s*$", re.IGNORECASE | re.MULTILINE)
_REASON = re.compile(r"^\W*reason\W*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Failure:
    skill: str
    scenario: str
    model: str
    line: str  # the criterion, or "[test] <name>"
    why: str  # "universal 0%", "regression" or "below 80%"

    @property
    def is_test(self) -> bool:
        return self.line.startswith(TEST_PREFIX)


def failures(summary: Mapping[str, object], skills: Sequence[str], below: int | None) -> list[Failure]:
    """The lines that blocked the run (a zero on every model, a regression on its model) and, with
    `below`, every line under that percentage with the skill; each (skill, scenario, model, line) once."""
    out: dict[tuple[str, str, str, str], Failure] = {}
    by_skill = summary.get("skills")
    assert isinstance(by_skill, dict)
    for name in skills:
        s = by_skill.get(name)
        if not isinstance(s, dict):
            continue
        models = [str(m) for sc in s["scenarios"] for m in sc["models"]]
        labels = list(dict.fromkeys(models))
        for z in s["gate"]["zero"]:
            for model in labels:
                out.setdefault(
                    (name, z["scenario"], model, z["line"]),
                    Failure(name, z["scenario"], model, z["line"], "universal 0%"),
                )
        for r in s["gate"]["regressions"]:
            key = (name, r["scenario"], r["model"], r["line"])
            out.setdefault(key, Failure(*key, f"regression {r['baseline']}% → {r['withSkill']}%"))
        if below is not None:
            for sc in s["scenarios"]:
                for model, m in sc["models"].items():
                    for line in m["lines"]:
                        if line["withSkill"] < below:
                            key = (name, sc["id"], model, line["line"])
                            out.setdefault(key, Failure(*key, f"{line['withSkill']}% with the skill, below {below}%"))
    return list(out.values())


@dataclass(frozen=True)
class Sample:
    answer: str | None  # None: it could not be generated
    error: str | None
    passed: bool | None  # the line's verdict or test result on this sample
    evidence: str  # the grader's reasons, or the test's failure message


def classifier_prompt(
    skill_text: str, task: str, failure: Failure, samples: Sequence[Sample], test_source: str | None
) -> str:
    categories = TEST_CATEGORIES if failure.is_test else CATEGORIES
    kind = "code test" if failure.is_test else "criterion"
    meanings = {
        "skill gap": "the skill does not teach it clearly enough",
        "eval too strict": "the answer is correct and idiomatic, but the "
        + kind
        + " demands one form, or something the task did not ask for",
        "grader error": "the answer meets the criterion and the grader still said NO",
        "test error": "the test, not the answer, is wrong",
        "model choice": "the skill is clear and the model picks another reasonable approach",
    }
    parts = [
        f"A model was given a skill (documentation) and a task. One {kind} keeps failing with the skill. "
        "Decide why, from the samples below. Categories:",
        *(f"- {c}: {meanings[c]}" for c in categories),
        "",
        f"The {kind}: {failure.line}",
        "",
        "<skill>",
        skill_text,
        "</skill>",
        "",
        "<task>",
        task,
        "</task>",
    ]
    if test_source is not None:
        parts += ["", "<test-file>", test_source, "</test-file>"]
    for i, s in enumerate(samples, 1):
        verdict = "no answer" if s.passed is None else ("passed" if s.passed else "failed")
        parts += ["", f'<sample n="{i}" result="{verdict}">', s.answer or f"(not generated: {s.error})"]
        if s.evidence:
            parts += ["--- why ---", s.evidence]
        parts.append("</sample>")
    parts += [
        "",
        f"End your reply with two lines: `CATEGORY: <one of {', '.join(categories)}>` and `REASON: <one sentence>`.",
    ]
    return "\n".join(parts)


def parse_classification(reply: str, is_test: bool) -> tuple[str, str] | None:
    allowed = TEST_CATEGORIES if is_test else CATEGORIES
    found = [m.group(1).strip().lower() for m in _CATEGORY.finditer(reply)]
    if not found or found[-1] not in allowed:
        return None
    reasons = [m.group(1).strip() for m in _REASON.finditer(reply)]
    return found[-1], (reasons[-1] if reasons else "")
