"""Reading a grader's reply, and the majority over several gradings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from skill_be.proc import clip

_MARKER = re.compile(r"verdicts\s*:", re.IGNORECASE)
_PAIR = re.compile(r"(?<![\w.])(\d+)\s*[:.)=-]\s*\**\s*(yes|no)\b", re.IGNORECASE)
_DECORATION = re.compile(r"[`*_#>|\-\s,;.]+")


class Unparseable(Exception):
    """The reply has no usable VERDICTS block."""


def parse_verdicts(reply: str, n: int) -> list[bool]:
    """One YES/NO per criterion from the LAST `VERDICTS:` block (any case, markdown around it allowed).
    A missing block, a missing or repeated criterion or a number out of range is Unparseable."""
    markers = list(_MARKER.finditer(reply))
    if not markers:
        raise Unparseable("no VERDICTS: line")
    block = reply[markers[-1].end() :]
    found: dict[int, bool] = {}
    started = False
    for line in block.split("\n"):
        # A verdict line starts with "<n>: YES|NO" (markdown before it allowed); a reason may follow.
        pairs = _PAIR.findall(line) if _PAIR.match(line.lstrip("`*_#>|-• \t")) else []
        if not pairs:
            if started and _DECORATION.sub("", line):
                break  # prose after the block ends it
            continue
        started = True
        for number, word in pairs:
            k = int(number)
            if k < 1 or k > n:
                raise Unparseable(f"criterion {k} is out of range (1-{n})")
            if k in found:
                raise Unparseable(f"criterion {k} appears twice")
            found[k] = word.lower() == "yes"
    missing = [k for k in range(1, n + 1) if k not in found]
    if missing:
        raise Unparseable(f"no verdict for criterion {', '.join(map(str, missing))}")
    return [found[k] for k in range(1, n + 1)]


def reasoning(reply: str, limit: int = 2000) -> str:
    """What a grader wrote before its last VERDICTS: block: its reasons, kept short."""
    marks = list(_MARKER.finditer(reply))
    text = (reply[: marks[-1].start()] if marks else reply).strip()
    return clip(text, limit, fold=False)


@dataclass(frozen=True)
class Vote:
    verdicts: list[bool]  # per criterion: YES when more than half of the successful gradings said YES
    ties: list[int]  # 1-based criteria whose gradings split evenly (counted as NO)


def majority(gradings: Sequence[Sequence[bool]], n: int) -> Vote:
    if not gradings:
        return Vote([False] * n, [])
    verdicts: list[bool] = []
    ties: list[int] = []
    for i in range(n):
        yes = sum(1 for g in gradings if g[i])
        verdicts.append(yes * 2 > len(gradings))
        if yes * 2 == len(gradings):
            ties.append(i + 1)
    return Vote(verdicts, ties)


# --- evidence (grader.template: evidence, grader.evidence) -----------------------------------------

_QUOTED = re.compile(r"[\"“”](.*)[\"“”]")  # the first to the last quote mark of a verdict line
_NUMBER = re.compile(r"^[`*_#>|\-• \t]*(\d+)")


def parse_with_evidence(reply: str, n: int) -> tuple[list[bool], list[str | None]]:
    """The verdicts (read as `parse_verdicts` reads them) and, per criterion, the quote its line gives
    (`<n>: YES "<quote>"`); None where a line has none. A quote is taken out before the verdicts are
    read, so words such as "2: no" inside it cannot pass for a verdict."""
    markers = list(_MARKER.finditer(reply))
    if not markers:
        raise Unparseable("no VERDICTS: line")
    quotes: dict[int, str] = {}
    cleaned: list[str] = []
    for line in reply[markers[-1].end() :].split("\n"):
        m = _QUOTED.search(line)
        number = _NUMBER.match(line)
        if m is not None and number is not None:
            quotes.setdefault(int(number.group(1)), m.group(1).strip())
            line = line[: m.start()] + line[m.end() :]
        cleaned.append(line)
    verdicts = parse_verdicts("VERDICTS:" + "\n".join(cleaned), n)
    return verdicts, [quotes.get(k) or None for k in range(1, n + 1)]


def quote_span(shown: str, quote: str | None) -> tuple[int, int] | None:
    """Where `quote` occurs in what the judge was shown, whitespace and case folded; None when it is
    not there ("evidence not found"), and for an empty quote."""
    words = (quote or "").split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), shown, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def counted(said: Sequence[bool], found: Sequence[bool], required: bool) -> list[bool]:
    """What a grading's verdicts count as: under `grader.evidence: required`, a YES without found
    evidence is a NO; under `reported` they count as the judge said."""
    return [v and (f or not required) for v, f in zip(said, found, strict=True)]
