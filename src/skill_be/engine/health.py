"""Errored is not failed: whether a skill's run measured anything, from its outputs alone.

An output's errors come from the infrastructure (a model or grader call that failed, a grader reply
with no verdict, code tests that could not run), not from the skill. When a model or the grader
failed every call, when the code tests ran on no answer, when every output of one scenario on one
model in one arm errored (its lines were never measured), when errors exceed `gate.maxErrorShare` of
the outputs, or when the gate would block only because of errors (`gate.blockOnErrors`), the skill's
verdict is ERROR: the run could not measure it. NOT READY is only ever decided by measured results.
Anything else is scored and gated as before. `gate.errorVerdict: false` keeps the reference's
behaviour (errors block, NOT READY). Data only; reports word it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill_be.engine.gate import Gate
from skill_be.engine.observations import Output
from skill_be.engine.prompts import ARM_WORDS, ARMS
from skill_be.engine.reasons import errors_alone_block
from skill_be.project.config import GateConfig

MODEL, GRADER, TESTS, TRIGGERS = "model", "grader", "code tests", "trigger calls"


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


def assess(
    outputs: Sequence[Output], models: Sequence[str], max_share: float, on: bool = True, gate: Gate | None = None
) -> Health:
    """ERROR when a model or the grader failed every call, the code tests ran on no answer, every
    output of one scenario, model and arm errored, the share of outputs with an error is above
    `max_share`, or `gate` blocks on errors alone. `on` False (gate.errorVerdict: false) keeps the
    reference's behaviour: errors only ever block, never make the verdict ERROR. Only the two arms
    the gate compares count: the previous arm's failures are reported with its comparison."""
    outputs = [o for o in outputs if o.arm in ARMS]
    per_output = [faults_of(o) for o in outputs]
    faults = [f for fs in per_output for f in fs]
    errored = sum(1 for fs in per_output if fs)
    why, part, lead = _why(outputs, models, per_output, max_share, gate) if on and outputs else ("", None, None)
    if on and not why and not errored and gate is not None and errors_alone_block(gate):
        faults = _trigger_faults(gate)  # only trigger calls failed, and nothing measured blocks
        why = f"{len(faults)} trigger call(s) failed and nothing measured blocks (gate.blockOnErrors)"
    # lead with a fault of the part that failed everything (or of the unit that did), when one did
    first = lead or next((f for f in faults if f.part == part), faults[0] if faults else None)
    count = sum(1 for f in faults if f == first)
    return Health(bool(why), why, first, count, len(faults), errored, len(outputs), part)


def _trigger_faults(gate: Gate) -> list[Fault]:
    seen = gate.trigger.observations if gate.trigger is not None else ()
    return [Fault(TRIGGERS, o.error) for o in seen if o.error is not None]


def _why(
    outputs: Sequence[Output],
    models: Sequence[str],
    per_output: Sequence[list[Fault]],
    max_share: float,
    gate: Gate | None,
) -> tuple[str, str | None, Fault | None]:
    """Why the verdict is ERROR ("" when it is not), the part to blame when one failed everything,
    and the fault to lead with when it is not simply the first."""
    why, part = _why_parts(outputs, models, per_output)
    if why:
        return why, part, None
    unit = _unmeasured_unit(outputs, per_output)
    if unit is not None:
        return unit
    errored = sum(1 for fs in per_output if fs)
    if errored / len(outputs) > max_share:
        return f"{errored} of {len(outputs)} outputs errored, more than gate.maxErrorShare ({max_share:g})", None, None
    if gate is not None and errored and errors_alone_block(gate):
        return (
            f"{errored} of {len(outputs)} outputs errored and nothing measured blocks (gate.blockOnErrors)",
            None,
            None,
        )
    return "", None, None


def _unmeasured_unit(outputs: Sequence[Output], per_output: Sequence[list[Fault]]) -> tuple[str, None, Fault] | None:
    """The first scenario, model and arm whose every output errored: its lines were never measured."""
    units: dict[tuple[str, str, str], list[list[Fault]]] = {}
    for o, fs in zip(outputs, per_output, strict=True):
        units.setdefault((o.scenario, o.model, o.arm), []).append(fs)
    for (scenario, model, arm), found in units.items():
        if all(found):
            what = f"every {ARM_WORDS.get(arm, arm)} output of the scenario {scenario} on {model} errored"
            return what, None, found[0][0]
    return None


def _why_parts(
    outputs: Sequence[Output], models: Sequence[str], per_output: Sequence[list[Fault]]
) -> tuple[str, str | None]:
    """A part that failed every call: a model, the grader or the code tests."""
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
    return "", None


def _expects_tests(output: Output) -> bool:
    return output.tests is not None or any("the code tests could not run" in e for e in output.errors)


def skill_health(
    outputs: Sequence[Output], labels: Sequence[str], config: GateConfig, gate: Gate | None = None
) -> Health:
    """`assess` with the config's `gate.maxErrorShare` and `gate.errorVerdict`, and the skill's gate."""
    return assess(outputs, labels, config.max_error_share, config.error_verdict, gate)
