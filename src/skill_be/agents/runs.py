"""What one agent run in a box comes to, for the engine's seam (engine/agent.py): the transcript the
driver reads from the CLI's output, the record kept per rep, and the error that makes the run an
error of its output (a box failure, a limit or a kill, the CLI's own error, its exit code); and the
checks' results as lines, redacted."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from skill_be.agents.boxes import AgentRun, CheckResult
from skill_be.agents.checks import check_lines
from skill_be.agents.drivers.base import AgentDriver, AgentSetup, Transcript, shared_tool
from skill_be.agents.record import record_of
from skill_be.agents.workspace import Files


@dataclass(frozen=True)
class Outcome:
    transcript: Transcript
    record: dict[str, Any]
    error: str | None  # redacted; None when the run finished


def outcome(
    driver: AgentDriver, run: AgentRun, setup: AgentSetup, files: Files, seconds: float, redact: Callable[[str], str]
) -> Outcome:
    """The run's transcript, record and error."""
    transcript = _parse(driver, run, setup)
    record = record_of(run, transcript, files, seconds, redact)
    servers = [m.name for m in setup.mcp]
    for kept, call in zip(record["transcript"]["toolCalls"], transcript.tool_calls, strict=True):
        kept["tool"] = shared_tool(driver, call.name, servers)  # expect.tools' vocabulary
    # A limit or a kill first (the transcript is cut then), then the CLI's own words, then its exit.
    error = run.error or _stopped(run) or transcript.error or _exit_error(run) or _over_turns(transcript, setup)
    return Outcome(transcript, record, redact(error) if error else None)


def check_results(rows: Sequence[CheckResult], redact: Callable[[str], str]) -> list[tuple[str, bool, str | None]]:
    """(line name, passed, message) for each check or JSON entry, its message redacted."""
    return [(name, passed, redact(message) if message else None) for name, passed, message in check_lines(rows)]


def _parse(driver: AgentDriver, run: AgentRun, setup: AgentSetup) -> Transcript:
    try:
        return driver.parse(run.stdout, setup)
    except Exception as e:  # a stream the driver cannot read is an error of this output
        return Transcript(final_message="", turns=0, error=f"the CLI's output could not be read ({e})")


def _over_turns(t: Transcript, setup: AgentSetup) -> str | None:
    """The prompt and its follow-ups share agent.maxTurns (each CLI run has the whole limit)."""
    if setup.follow_ups and t.turns > setup.limits.max_turns:
        return f"turn limit reached ({t.turns} turns over the prompt and its follow-ups, maxTurns {setup.limits.max_turns})"
    return None


def _stopped(run: AgentRun) -> str | None:
    if run.exit == "timeout":
        return "the agent reached its time limit"
    if run.killed:
        return "the agent container was killed: " + ", ".join(run.killed)
    return None


def _exit_error(run: AgentRun) -> str | None:
    if run.exit not in ("0", ""):
        tail = run.stderr.strip().splitlines()[-1:] if run.stderr.strip() else []
        return f"the CLI exited with {run.exit}" + (f": {tail[0][:200]}" if tail else "")
    return None
