"""Progress on stderr: plain lines for logs, a live status line on a terminal."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from skill_be.agents.checks import expand_names
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARM_WORDS
from skill_be.project.loader import Skill


def _outcome(out: Output, lines: ScenarioLines) -> str:
    if out.error is not None:
        return f"error: {out.error}"
    parts = []
    n = len(lines.scenario.scored)
    if n:
        parts.append(f"{sum(out.verdicts)}/{n} YES")
    if lines.tests:
        names = lines.tests
        if out.tests is not None and lines.scenario.agent is not None:  # a JSON-lines check: its entries
            names = expand_names(names, [[r.name for r in out.tests.results]])
        passed = sum(out.passes(n, names)[n:])
        parts.append(f"{passed}/{len(names)} tests passed")
    if out.errors:
        parts.append("error")
    return ", ".join(parts) or "done"


class Progress:
    def __init__(self, stream: TextIO = sys.stderr, live: bool | None = None) -> None:
        self.stream = stream
        self.live = stream.isatty() if live is None else live
        self.color = self.live and not os.environ.get("NO_COLOR")
        self.started = time.monotonic()
        self.reps_total = 0
        self.reps_done = 0
        self.current = ""
        self.reps: dict[str, int] = {}

    def _print(self, line: str) -> None:
        if self.live:
            self.stream.write("\r\x1b[K" + line + "\n" + self._status())
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def _status(self) -> str:
        elapsed = time.monotonic() - self.started
        text = f"{self.reps_done}/{self.reps_total} reps · {elapsed:.0f}s · {self.current}"
        return f"\x1b[2m{text}\x1b[0m" if self.color else text

    def clear(self) -> None:
        """Take the status line away, so that something else (the report on stdout) can print."""
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def redraw(self) -> None:
        if self.live:
            self.stream.write(self._status())
            self.stream.flush()

    def report(self, text: str) -> None:
        """A report on stdout: on a terminal the status line is taken away first, then drawn again."""
        self.clear()
        print(text, flush=True)
        self.redraw()

    def skill_started(self, skill: Skill, models: int, reps: int, concurrency: int) -> None:
        n = len(skill.evals.scenarios)
        self.reps_total += n * models * reps
        self.current = skill.name
        if not self.live:  # the reference's line, byte for byte, in logs
            self._print(f"{skill.name}: {n} scenarios × {models} model(s) × {reps} reps, concurrency {concurrency}")
            return
        from skill_be.reports.terminal import plural

        self._print(
            f"{skill.name}: {plural(n, 'scenario')} × {plural(models, 'model')} × {plural(reps, 'rep')}, "
            f"concurrency {concurrency}"
        )

    def output_done(self, skill: Skill, out: Output, lines: ScenarioLines, reps: int) -> None:
        self.current = skill.name
        self._print(
            f"  [{out.scenario}] {out.model} rep {out.rep}/{reps} {ARM_WORDS[out.arm]}: "
            f"{_outcome(out, lines)} ({out.seconds:.1f}s)"
        )

    def rep_done(self, scenario: str, model: str, rep: int, reps: int, done: int, total: int) -> None:
        self.reps_done += 1
        elapsed = time.monotonic() - self.started
        self._print(f"  [{scenario}] {model} rep {rep}/{reps} done ({done}/{total} reps, {elapsed:.1f}s elapsed)")

    def skill_finished(self, skill: Skill, seconds: float) -> None:
        self._print(f"{skill.name}: finished in {seconds:.1f}s")

    def close(self) -> None:
        self.clear()
