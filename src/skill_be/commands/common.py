"""What several commands share: the closing Result line and warnings."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def join_words(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def result_line(blockers: Sequence[str]) -> str:
    """`Result: pass`, or `Result: blocked by the result file and the typecheck`."""
    return f"Result: blocked by {join_words(blockers)}" if blockers else "Result: pass"
