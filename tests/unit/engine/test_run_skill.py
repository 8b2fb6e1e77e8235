"""`Engine.run_skill` in-process: the majority vote, the grading retry, failures as data, the
top-up, and the seams (call hook, unit filter, arms) — scripted adapters, no CLI, no files."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from tests.support.engine import SKILL_TEXT, Scripted, engine, scenario, settings, skill, verdicts

from skill_be.adapters.base import AdapterStartError, Answer, CallContext
from skill_be.engine.arms import BASELINE_ARM, DEFAULT_ARMS, REUSE, SKIP, WITH_SKILL_ARM, Arm
from skill_be.engine.calls import Call, CallTag, MakeCall, Model
from skill_be.engine.runner import Engine, SkillRun
from skill_be.project.config import GateConfig
from skill_be.project.loader import Skill

ANSWER = "Use allocate(10, [1, 1, 1])."


def answers(prompt: str, n: int) -> str:
    return ANSWER + (" (with the skill)" if SKILL_TEXT in prompt else "")


def run(e: Engine, s: Skill | None = None) -> SkillRun:
    return asyncio.run(e.run_skill(s or skill(), 0))


def test_the_gradings_majority_decides_and_a_split_counts_as_no() -> None:
    # Three gradings of each answer on two criteria: criterion 1 gets YES, NO, YES; criterion 2 YES, NO, NO.
    replies = itertools.cycle([verdicts(True, True), verdicts(False, False), verdicts(True, False)])
    grader = Scripted(lambda prompt, n: next(replies))
    e = engine([Model("m", Scripted(answers))], Model("g", grader), settings(gradings=3))
    out = run(e, skill(scenarios=[scenario("split", ("Uses allocate", "Checks the sum"))]))
    assert len(out.outputs) == 2 and len(grader.calls) == 6
    for o in out.outputs:
        assert o.verdicts == [True, False]
        assert [g.k for g in o.gradings] == [1, 2, 3]
    # the control: an even split is a tie, counted NO, with a note
    replies2 = itertools.cycle([verdicts(True), verdicts(False)])
    e2 = engine(
        [Model("m", Scripted(answers))], Model("g", Scripted(lambda p, n: next(replies2))), settings(gradings=2)
    )
    tied = run(e2)
    assert all(o.verdicts == [False] for o in tied.outputs)
    assert all(any("split 1-1; counted as NO" in n for n in o.notes) for o in tied.outputs)


def test_an_unparseable_grading_is_retried_once() -> None:
    seen: set[str] = set()

    def first_time_unparseable(prompt: str, n: int) -> str:
        again = prompt in seen
        seen.add(prompt)
        return verdicts(True) if again else "no verdicts here"

    grader = Scripted(first_time_unparseable)
    e = engine([Model("m", Scripted(answers))], Model("g", grader), settings())
    out = run(e)
    assert len(grader.calls) == 4  # two outputs, each graded twice (the retry)
    for o in out.outputs:
        (g,) = o.gradings
        assert g.verdicts == [True] and g.error is None
        assert len(g.replies) == 2 and g.attempt_errors[0].startswith("unparseable reply")


def test_a_grading_that_fails_twice_is_an_error_and_its_criteria_count_as_zero() -> None:
    grader = Scripted(lambda prompt, n: RuntimeError("grader down"))
    e = engine([Model("m", Scripted(answers))], Model("g", grader), settings())
    out = run(e)
    assert len(grader.calls) == 4
    for o in out.outputs:
        assert o.verdicts == [False]
        assert any("every grading failed" in err and "grader down" in err for err in o.errors)
    assert out.errors == 2 and not out.gate.ready  # errors block by default


def test_a_failed_generation_is_data_not_an_exception() -> None:
    def model(prompt: str, n: int) -> str | Exception:
        return ValueError("quota exceeded") if "Use allocate(amount" in prompt else ANSWER

    grader = Scripted(lambda prompt, n: verdicts(True))
    out = run(engine([Model("m", Scripted(model))], Model("g", grader), settings()))
    failed = [o for o in out.outputs if o.error]
    assert [o.arm for o in failed] == [WITH_SKILL_ARM.name]
    assert failed[0].error == "quota exceeded" and failed[0].text is None
    assert "rep 1 with skill: the generation failed (quota exceeded)" in failed[0].errors[0]
    assert len(grader.calls) == 1  # only the answer that exists is graded


def test_a_call_past_its_time_limit_is_an_error_of_that_output() -> None:
    class Slow(Scripted):
        async def complete(self, prompt: str, ctx: CallContext) -> Answer:
            await asyncio.sleep(5)
            return await super().complete(prompt, ctx)

    out = run(engine([Model("m", Slow(answers))], None, settings(timeout=1)))
    assert all(o.error == "timed out after 1 s" for o in out.outputs)


def test_an_adapter_that_cannot_start_stops_the_run() -> None:
    model = Scripted(lambda prompt, n: AdapterStartError("claude: not found"))
    with pytest.raises(ExceptionGroup) as e:  # out of the engine's task group
        run(engine([Model("m", model)], None, settings()))
    assert e.group_contains(AdapterStartError, depth=None)


class Worse:
    """A grader that passes 2 of every 3 baseline answers and 1 of every 3 with the skill: a drop the
    evidence rule cannot decide at 3 reps."""

    def __init__(self) -> None:
        self.seen = {"baseline": 0, "skill": 0}

    def __call__(self, prompt: str, n: int) -> str:
        arm = "skill" if "(with the skill)" in prompt else "baseline"
        self.seen[arm] += 1
        k = self.seen[arm] % 3
        return verdicts(k in (1, 2) if arm == "baseline" else k == 1)


def test_top_up_adds_reps_where_the_evidence_rule_is_inconclusive() -> None:
    gate = GateConfig(rule="evidence", top_up_reps=12)
    model = Scripted(answers)
    critical = skill(scenarios=[scenario("split", critical=True)])
    e = engine([Model("m", model)], Model("g", Scripted(Worse())), settings(reps=3, gate=gate, top_up=True))
    out = run(e, critical)
    assert out.gate.top_up, "the first look found something inconclusive and planned more reps"
    (t,) = out.gate.top_up
    assert (t.reps_from, t.reps_to) == (3, 12)
    assert max(o.rep for o in out.outputs) == 12 and len(model.calls) == 24
    # the control: without --top-up the same plan stops at its reps
    plain = Scripted(answers)
    out2 = run(engine([Model("m", plain)], Model("g", Scripted(Worse())), settings(reps=3, gate=gate)), critical)
    assert out2.gate.top_up == () and len(plain.calls) == 6


class Stored:
    """A call hook that answers every generation itself (as the cache and regrade's answers do)."""

    def __init__(self) -> None:
        self.tags: list[CallTag] = []

    async def call(self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        self.tags.append(tag)
        if tag.kind == "generate":
            return Call(Answer("stored " + ANSWER), None, 0.0)
        return await make(model, prompt, priority, tag)


def test_the_call_hook_answers_before_the_model_and_knows_the_skill() -> None:
    model, hook = Scripted(answers), Stored()
    out = run(engine([Model("m", model)], Model("g", Scripted(lambda p, n: verdicts(True))), settings(), hook=hook))
    assert model.calls == [], "the hook answered every generation"
    assert all(o.text == "stored " + ANSWER for o in out.outputs)
    assert {t.skill for t in hook.tags} == {"money"}  # the tag carries the skill
    assert {t.kind for t in hook.tags} == {"generate", "grade"}


def test_the_unit_filter_runs_only_its_units() -> None:
    model = Scripted(answers)
    mine = {("money", "split", "m", 2)}
    out = run(engine([Model("m", model)], None, settings(reps=3), units=lambda *unit: unit in mine))
    assert sorted({o.rep for o in out.outputs}) == [2] and len(model.calls) == 2


def test_the_engine_runs_every_arm_it_is_given() -> None:
    previous = Arm("previous", "previous version", lambda s: s._replace(doc=s.doc._replace(text="Old advice: round.")))
    model = Scripted(answers)
    out = run(engine([Model("m", model)], None, settings(), arms=(*DEFAULT_ARMS, previous)))
    assert [o.arm for o in out.outputs] == [BASELINE_ARM.name, WITH_SKILL_ARM.name, "previous"]
    assert sum("Old advice" in p for p in model.calls) == 1


def test_an_arm_that_reuses_or_skips_calls_nothing() -> None:
    """engine/arms.py: REUSE copies the with-skill output (marked), SKIP makes none."""
    for plan, arms in ((REUSE, ["baseline", "with-skill", "previous"]), (SKIP, ["baseline", "with-skill"])):
        previous = Arm("previous", "previous version", lambda s: s, lambda skill, scenario, p=plan: p)
        model = Scripted(answers)
        out = run(engine([Model("m", model)], None, settings(), arms=(*DEFAULT_ARMS, previous)))
        assert [o.arm for o in out.outputs] == arms and len(model.calls) == 2
        if plan == REUSE:
            assert out.outputs[2].text == out.outputs[1].text and out.outputs[2].meta["reusedFrom"] == "with-skill"
    # the control: the default arms make two outputs per rep and never show the old text
    plain = Scripted(answers)
    run(engine([Model("m", plain)], None, settings()))
    assert len(plain.calls) == 2 and not any("Old advice" in p for p in plain.calls)
