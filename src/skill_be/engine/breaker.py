"""The circuit breaker: a model whose endpoint is dead is found after a few calls, not after every timeout.

Each model (by label) keeps a streak: the consecutive failed calls that failed the same way, with
no success between them. The ways that count are an endpoint that did not answer (a connection that
failed, was dropped, or a call that timed out: `UNREACHABLE`) and, for an agent CLI, one error
message repeated (digits aside). After `AFTER` of them in a row the breaker opens for that model:
the warning is given at once, and every later call of the model is not sent, its error the one cause
that names the endpoint. Any other outcome ends the streak. Data in, data out: the engine asks it
before each call and tells it each outcome.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

AFTER = 4  # consecutive failures of one kind that open the breaker (a first wave at concurrency 4)
UNREACHABLE = "unreachable"  # the kind of a connection failure or a timeout


@dataclass
class _Streak:
    kind: str = ""
    count: int = 0
    first: str = ""  # the first failure's reason, as the part said it
    opened: str | None = None  # the error of every call not sent, once open


def same_way(error: str) -> str:
    """The kind of an agent CLI's failure: its message, numbers aside (times, counts, ports)."""
    return re.sub(r"\d+(\.\d+)?", "#", error)


def endpoint(described: Mapping[str, object]) -> str:
    """Where a model's calls go, as its adapter describes it: the URL, else the program, else the adapter."""
    for key in ("baseUrl", "url", "bin", "run", "adapter"):
        value = described.get(key)
        if value:
            return str(value)
    return "its endpoint"


class Breaker:
    """One per engine; `warn` gets the line that says a model is cut off, once per model."""

    def __init__(self, warn: Callable[[str], None] | None = None, after: int = AFTER) -> None:
        self.warn = warn
        self.after = after
        self._streaks: dict[str, _Streak] = {}

    def refused(self, label: str) -> str | None:
        """The error of a call of `label` that is not sent, or None: send it."""
        streak = self._streaks.get(label)
        return streak.opened if streak is not None else None

    def record(self, label: str, where: str, error: str | None, kind: str | None) -> None:
        """One finished call of `label` to `where`: a success (`error` None), a failure of `kind` that
        counts, or a failure that does not (`kind` None: the endpoint answered)."""
        streak = self._streaks.setdefault(label, _Streak())
        if streak.opened is not None:
            return
        if error is None or kind is None:
            self._streaks[label] = _Streak()
            return
        if kind != streak.kind:
            streak.kind, streak.count, streak.first = kind, 0, error
        streak.count += 1
        if streak.count < self.after:
            return
        how = "failed to connect or timed out" if kind == UNREACHABLE else "failed the same way"
        streak.opened = (
            f"not sent: {streak.count} calls in a row to {where} {how} ({streak.first}), "
            f"so skill-be stopped sending to it"
        )
        if self.warn is not None:
            self.warn(
                f"skill-be: {label}: {streak.count} calls in a row to {where} {how}, with no success "
                f"between them ({streak.first}); the remaining calls of {label} are not sent and count as errors"
            )
