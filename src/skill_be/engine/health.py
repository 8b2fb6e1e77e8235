"""Errored is not failed: whether a skill's run measured anything, from its outputs alone.

An output's errors come from the infrastructure (a model or grader call that failed, a grader reply
with no verdict, code tests that could not run), not from the skill. When a model or the grader
failed every call, when the code tests ran on no answer, or when errors exceed `gate.maxErrorShare`
of the outputs, the skill's verdict is ERROR: the run could not measure it. Anything else is scored
and gated as before (the errors still count for `gate.blockOnErrors`). Data only; reports word it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARMS
from skill_be.project.config import GateConfig

MODEL, GRADER, TESTS = "model", "grader", "code tests"


@dataclass(frozen=True)
class Fault:
    """One infrastructure failure: which part failed and its reason as the part said it."""

    part: str  # "model <label>" | "grader" | "code tests"
    reason: str


@dataclass(frozen=True)
class Health:
    error: bool  # the verdict is ERROR: the run could not measure the skill
    why: str  # what made it ERROR ("every call of the grader failed"); empty when not ERROR
    first: Fault | None  # the first fault, in the outputs' order
    first_count: int  # how many faults share the first one's part and reason
    faults: int  # every fault counted
    errored_outputs: int
    outputs: int
    blamed: str | None = None  # the part that failed every call, when one did

    @property
    def cause(self) -> str:
        """The one line that leads the report and the Result line."""
        if not self.error or self.first is None:
            return self.why
        others = self.faults - self.first_count
        more = f"; {others} other error(s)" if others else ""
        part = "" if self.blamed == self.first.part else f"{self.first.part}: "
        return f"{self.why}: {part}{self.first.reason} ({self.first_count}x{more})"

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": "ERROR" if self.error else None,
            "cause": self.cause if self.error else None,
            "erroredOutputs": self.errored_outputs,
            "outputs": self.outputs,
        }


def faults_of(output: Output) -> list[Fault]:
    """The infrastructure failures of one output, in the order they happened."""
    if output.error is not None:
        return [Fault(f"{MODEL} {output.model}", output.error)]
    found: list[Fault] = []
    if output.gradings and all(g.verdicts is None for g in output.gradings):
        found += [Fault(GRADER, _first_reason(g.attempt_errors, g.error)) for g in output.gradings]
    test_error = _test_error(output)
    if test_error is not None:
        found.append(Fault(TESTS, test_error))
    return found


def _first_reason(attempts: Sequence[str], last: str | None) -> str:
    return attempts[0] if attempts else (last or "no reason given")


def _test_error(output: Output) -> str | None:
    if output.tests is not None and output.tests.error:
        return output.tests.error
    for line in output.errors:  # the session raised on this answer (engine/runner.py `_test`)
        if "the code tests could not run (" in line:
            return line.split("the code tests could not run (", 1)[1].rsplit(")", 1)[0]
    return None


def assess(outputs: Sequence[Output], models: Sequence[str], max_share: float, on: bool = True) -> Health:
    """ERROR when a model or the grader failed every call, the code tests ran on no answer, or the
    share of outputs with an error is above `max_share`. `on` False (gate.errorVerdict: false) keeps
    the reference's behaviour: errors only ever block, never make the verdict ERROR. Only the two
    arms the gate compares count: the previous arm's failures are reported with its comparison."""
    outputs = [o for o in outputs if o.arm in ARMS]
    per_output = [faults_of(o) for o in outputs]
    faults = [f for fs in per_output for f in fs]
    errored = sum(1 for fs in per_output if fs)
    why, part = _why(outputs, models, per_output, max_share) if on and outputs else ("", None)
    # lead with a fault of the part that failed everything, when one did
    first = next((f for f in faults if f.part == part), faults[0] if faults else None)
    count = sum(1 for f in faults if f == first)
    return Health(bool(why), why, first, count, len(faults), errored, len(outputs), part)


def _why(
    outputs: Sequence[Output], models: Sequence[str], per_output: Sequence[list[Fault]], max_share: float
) -> tuple[str, str | None]:
    """Why the verdict is ERROR ("" when it is not), and the part to blame when one failed everything."""
    for label in models:
        mine = [o for o in outputs if o.model == label]
        if mine and all(o.error is not None for o in mine):
            return f"every call of the {MODEL} {label} failed", f"{MODEL} {label}"
    graded = [fs for o, fs in zip(outputs, per_output, strict=True) if o.gradings]
    if graded and all(any(f.part == GRADER for f in fs) for fs in graded):
        return f"every call of the {GRADER} failed", GRADER
    tested = [fs for o, fs in zip(outputs, per_output, strict=True) if o.error is None and _expects_tests(o)]
    if tested and all(any(f.part == TESTS for f in fs) for fs in tested):
        return f"the {TESTS} could not run on any answer", TESTS
    errored = sum(1 for fs in per_output if fs)
    if errored / len(outputs) > max_share:
        return f"{errored} of {len(outputs)} outputs errored, more than gate.maxErrorShare ({max_share:g})", None
    return "", None


def _expects_tests(output: Output) -> bool:
    return output.tests is not None or any("the code tests could not run" in e for e in output.errors)


def skill_health(outputs: Sequence[Output], labels: Sequence[str], gate: GateConfig) -> Health:
    """`assess` with the config's `gate.maxErrorShare` and `gate.errorVerdict`."""
    return assess(outputs, labels, gate.max_error_share, gate.error_verdict)
