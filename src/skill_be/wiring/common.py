"""What several commands share: warnings on stderr, and the closing Result line (reports/closing.py)."""

from __future__ import annotations

import sys

from skill_be.reports.closing import join_words, result_line

__all__ = ["join_words", "result_line", "warn"]


def warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
