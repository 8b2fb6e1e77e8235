"""Coverage: every public API name of the library is mentioned in some SKILL.md or eval file."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from skill_be.checks import CheckOutcome, Problem
from skill_be.checks.plan import CoveragePlan
from skill_be.project.files import read_text
from skill_be.project.loader import Project

_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def mention_texts(project: Project) -> list[str]:
    """Every SKILL.md, and the strings of every eval file, of the skills with an eval file."""
    config = project.config
    texts: list[str] = []
    for name in project.all_names:
        texts.append(read_text(config.skills / name / "SKILL.md", what="SKILL.md"))
        eval_path = config.evals / f"{name}.json"
        texts.extend(_strings(json.loads(read_text(eval_path, what="eval file"))))
    return texts


class Mentions:
    """Whole-word lookups over a set of texts."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self.words = {w for t in texts for w in _WORD.findall(t)}

    def has(self, word: str) -> bool:
        if _WORD.fullmatch(word):
            return word in self.words
        pattern = re.compile(r"(?<![\w$])" + re.escape(word) + r"(?![\w$])")
        return any(pattern.search(t) for t in self.texts)


def uncovered(names: Sequence[str], plan: CoveragePlan, mentions: Mentions, *, exact: bool) -> list[str]:
    """The names no text mentions. Unless `exact` (a command's names, matched as printed), a
    preset's `Class.member` is covered by the member name."""
    ignore = set(plan.settings.ignore)
    out: list[str] = []
    for name in names:
        if name in ignore:
            continue
        word = name.rsplit(".", 1)[-1] if not exact and "." in name else name
        if not mentions.has(word):
            out.append(name)
    return out


def outcome(plan: CoveragePlan, missing: Sequence[str], config_file: Path) -> CheckOutcome:
    if not missing:
        return CheckOutcome("coverage", ("coverage: every API name is mentioned",))
    blocking = plan.settings.blocking
    line = (
        f"coverage: {len(missing)} API name(s) not mentioned in any SKILL.md or eval file"
        + ("" if blocking else ", not blocking")
        + ": "
        + ", ".join(missing)
    )
    problems = tuple(
        Problem(message=f'API name "{name}" is not mentioned in any SKILL.md or eval file', file=config_file)
        for name in missing
    )
    return CheckOutcome("coverage", (line,), blocks=blocking, blocker="the coverage check", problems=problems)


def off() -> CheckOutcome:
    return CheckOutcome("coverage", ("coverage: off",))
