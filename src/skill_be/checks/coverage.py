"""Coverage: every public API name of the library is mentioned in some SKILL.md or eval file."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from skill_be.checks import CheckOutcome, Problem
from skill_be.checks.commandline import TIMEOUT, command_argv, run_bounded
from skill_be.checks.plan import CoveragePlan, coverage_where
from skill_be.project.files import read_text
from skill_be.project.loader import Project

_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def command_names(project: Project, command: str) -> list[str]:
    """The names the coverage command prints, one per line, in order, without repeats."""
    from skill_be.adapters.process import tail

    where = coverage_where(project.config).key("command")
    argv = command_argv(project.config, command, where)
    try:
        code, out, err = run_bounded(argv, stdin="", cwd=project.config.root, env=os.environ)
    except OSError as e:
        raise where.error(f'cannot start "{argv[0]}" ({e.strerror or e}); fix the command line') from None
    if code is None:
        raise where.error(f"did not finish within {TIMEOUT} seconds; it must print the API names and exit")
    if code != 0:
        detail = tail(err) or tail(out)
        raise where.error(f"failed (exit code {code})" + (f": {detail}" if detail else "") + "; fix the command")
    return unique(line.strip() for line in out.decode("utf-8", errors="replace").splitlines() if line.strip())


def unique(names: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for n in names:
        seen.setdefault(n, None)
    return list(seen)


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


def uncovered(names: Sequence[str], plan: CoveragePlan, mentions: Mentions) -> list[str]:
    """The names no text mentions. A preset's `Class.member` is covered by the member name; a
    command's names are matched exactly as printed."""
    ignore = set(plan.settings.ignore)
    out: list[str] = []
    for name in names:
        if name in ignore:
            continue
        word = name.rsplit(".", 1)[-1] if plan.kind != "command" and "." in name else name
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
