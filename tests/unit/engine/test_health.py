"""engine/health.py: which runs could not measure the skill, and the one line that says why."""

from __future__ import annotations

from skill_be.engine.health import assess, faults_of
from skill_be.engine.observations import Grading, Output


def out(
    model: str = "m1", *, error: str | None = None, grading_errors: list[str] | None = None, rep: int = 1
) -> Output:
    o = Output(scenario="s", model=model, rep=rep, arm="baseline", error=error)
    if error is None:
        o.text = "answer"
        if grading_errors is None:
            o.gradings = [Grading(k=1, verdicts=[True])]
        else:
            o.gradings = [Grading(k=i + 1, error=e, attempt_errors=[e, e]) for i, e in enumerate(grading_errors)]
    return o


def test_every_generation_of_one_model_failing_is_error_with_the_first_cause_counted() -> None:
    outputs = [out("m1", error="exit code 127: not found", rep=r) for r in (1, 2)] + [out("m2")]
    h = assess(outputs, ["m1", "m2"], 0.9)
    assert h.error
    assert h.cause == "every call of the model m1 failed: exit code 127: not found (2x)"


def test_every_grading_failing_is_error_even_when_the_generations_worked() -> None:
    outputs = [out(grading_errors=["unparseable reply: no VERDICTS: line"] * 2) for _ in range(3)]
    h = assess(outputs, ["m1"], 0.9)
    assert h.error and h.cause == "every call of the grader failed: unparseable reply: no VERDICTS: line (6x)"


def test_one_good_grading_anywhere_is_not_a_grader_failure() -> None:
    outputs = [out(grading_errors=["timed out"]), out()]
    assert not assess(outputs, ["m1"], 0.9).error  # 1 of 2 errored: under the share
    assert assess(outputs, ["m1"], 0.4).error  # over it
    assert assess(outputs, ["m1"], 0.4).cause == (
        "1 of 2 outputs errored, more than gate.maxErrorShare (0.4): grader: timed out (1x)"
    )


def test_the_share_counts_outputs_and_names_other_errors() -> None:
    outputs = [out(error="boom"), out(grading_errors=["bad"]), out(), out("m2", error="boom")]
    h = assess(outputs, ["m1", "m2"], 0.5)
    assert h.error and h.why == "every call of the model m2 failed"  # m2 failed everything
    h = assess(outputs[:3], ["m1"], 0.5)
    assert h.error and h.cause.endswith("model m1: boom (1x; 1 other error(s))")


def test_a_clean_run_and_errors_within_the_share_are_not_error() -> None:
    assert not assess([out(), out()], ["m1"], 0.0).error
    h = assess([out(error="x"), out(), out()], ["m1"], 0.5)
    assert not h.error and h.errored_outputs == 1 and h.cause == ""


def test_the_reference_behaviour_never_says_error() -> None:
    outputs = [out(error="exit code 127")]
    assert assess(outputs, ["m1"], 0.5).error
    assert not assess(outputs, ["m1"], 0.5, on=False).error  # gate.errorVerdict: false


def test_faults_of_an_output_with_code_tests_that_could_not_start() -> None:
    o = out()
    o.errors.append("rep 1 baseline: the code tests could not run (docker: no such image); its tests count as 0")
    assert [f.reason for f in faults_of(o)] == ["docker: no such image"]
    h = assess([o, o], ["m1"], 1.0)
    assert h.error and h.cause == "the code tests could not run on any answer: docker: no such image (2x)"


def test_every_output_of_one_unit_erroring_is_error_with_that_units_fault() -> None:
    """One scenario's outputs all errored (a grader that answers one criterion of two): its lines were
    never measured, whatever the share."""
    good = [out(rep=r) for r in (1, 2)]
    bad = [out(grading_errors=["unparseable reply: no verdict for criterion 2"], rep=r) for r in (1, 2)]
    for o in bad:
        o.scenario = "round"
    h = assess([*good, *bad], ["m1"], 0.9)
    assert h.error
    assert h.cause == (
        "every baseline output of the scenario round on m1 errored: grader: unparseable reply: "
        "no verdict for criterion 2 (2x)"
    )
    assert not assess([*good, *bad], ["m1"], 0.9, on=False).error  # gate.errorVerdict: false


def test_a_gate_blocked_by_errors_alone_is_error_and_a_measured_block_is_not() -> None:
    from skill_be.engine.gate import Gate

    outputs = [out(error="boom"), out(), out(), out()]
    alone = Gate(False, (), (), 1, True, False)
    h = assess(outputs, ["m1"], 0.5, gate=alone)
    assert h.error and h.why == "1 of 4 outputs errored and nothing measured blocks (gate.blockOnErrors)"
    measured = Gate(False, (("s", "a line"),), (), 1, True, False)  # a zero block beside the error
    assert not assess(outputs, ["m1"], 0.5, gate=measured).error
    assert not assess(outputs, ["m1"], 0.5, on=False, gate=alone).error


def test_trigger_calls_that_alone_block_are_error() -> None:
    from skill_be.engine.gate import Gate
    from skill_be.engine.trigger_scores import Observation, TriggerResult
    from skill_be.project.triggers import TriggerQuery

    q = TriggerQuery("q", "should", ("triggers", "should", 0))
    seen = (Observation(q, "m1", 1, error="timed out"), Observation(q, "m1", 2, "money"))
    result = TriggerResult("money", ("money",), 2, "strict", seen, (), ())
    gate = Gate(False, (), (), 0, True, False, trigger=result)
    h = assess([out(), out()], ["m1"], 0.5, gate=gate)
    assert h.error and h.cause == (
        "1 trigger call(s) failed and nothing measured blocks (gate.blockOnErrors): trigger calls: timed out (1x)"
    )
    assert not assess([out(), out()], ["m1"], 0.5, on=False, gate=gate).error  # the reference's way
