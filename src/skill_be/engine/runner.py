"""Runs one skill: every scenario × model × rep × arm, graded and code-tested as soon as it exists."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from skill_be.adapters.base import AdapterStartError, CallContext, Unreachable
from skill_be.engine.arms import DEFAULT_ARMS, REUSE, RUN, Arm
from skill_be.engine.assertions import grade_model_free
from skill_be.engine.breaker import UNREACHABLE, Breaker, endpoint
from skill_be.engine.calls import GENERATE, GRADE, LIVE, Call, CallHook, CallTag, Model, prompt_cache_key
from skill_be.engine.gate import Gate, LineScore, ScenarioLines
from skill_be.engine.judge_noise import JudgeNoise, judge_noise
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.observations import Grading, Output, TestRun
from skill_be.engine.pairwise import Comparison, compare
from skill_be.engine.prompts import WITH_SKILL, grader_prompt, grader_stable, model_stable
from skill_be.engine.topup import settle
from skill_be.engine.verdicts import Unparseable, counted, majority, parse_verdicts, parse_with_evidence, quote_span
from skill_be.project.config import GateConfig, Price
from skill_be.project.evals import Scenario
from skill_be.project.loader import Skill

__all__ = ["GENERATE", "GRADE", "Call", "CallTag", "Engine", "Model", "Settings", "SkillRun"]  # engine/calls.py
UnitFilter = Callable[[str, str, str, int], bool]  # (skill, scenario, model label, rep) -> run it


RepRunner = Callable[[ScenarioLines, Model, int], Coroutine[Any, Any, None]]


def every_unit(skill: str, scenario: str, model: str, rep: int) -> bool:
    return True


async def _no_reps(sl: ScenarioLines, model: Model, rep: int) -> None:
    raise AssertionError("no reps to top up with")  # pragma: no cover - settle is told top_up False


class CodeTests(Protocol):
    """The part of codetests.session.CodeTestSession the engine uses."""

    def test_names(self, skill: str, scenario_id: str) -> tuple[str, ...]: ...
    async def run(self, skill: str, scenario_id: str, answer: str) -> TestRun: ...


class AgentOutputs(Protocol):
    """The engine's seam to agent scenarios (engine/agent.py `AgentSide`): their lines, and an output
    made by an agent run instead of a model call."""

    def line_names(self, scenario: Scenario, code_tests: tuple[str, ...]) -> tuple[str, ...]: ...
    def final_lines(self, lines: list[ScenarioLines], outputs: Sequence[Output]) -> list[ScenarioLines]: ...
    async def output(
        self, engine: Engine, skill: Skill, skill_index: int, sl: ScenarioLines, model: Model, rep: int, arm: Arm
    ) -> Output: ...


class Listener(Protocol):
    """Told as each output and each rep (both arms) finishes; the run command writes and prints from it."""

    def output_done(self, skill: Skill, output: Output, lines: ScenarioLines) -> None: ...
    def rep_done(self, skill: Skill, scenario: str, model: str, rep: int, done: int, total: int) -> None: ...


class NoListener:
    """For callers that only want the returned data (triage)."""

    def output_done(self, skill: Skill, output: Output, lines: ScenarioLines) -> None:
        pass

    def rep_done(self, skill: Skill, scenario: str, model: str, rep: int, done: int, total: int) -> None:
        pass


@dataclass(frozen=True)
class Settings:
    reps: int
    gradings: int
    timeout_seconds: int
    cwd: Path
    template: str
    grader_rules: str | None
    gate: GateConfig
    top_up: bool = False  # --top-up: more reps for what the evidence rule finds inconclusive
    # The config's pricing by model label or id, for budgets' maxCostUsd (engine/assertions.py).
    prices: Mapping[str, Price] = field(default_factory=dict)
    evidence: str | None = None  # grader.evidence: None, reported or required (engine/verdicts.py `counted`)
    max_split: float = 0.2  # grader.maxSplitShare: engine/judge_noise.py flags a line split more often
    pairwise: bool = False  # compare.pairwise: a blind A/B of each rep's two answers (engine/pairwise.py)
    pairwise_seed: int | None = None  # the A/B order's seed; None: a fresh one each run (tests fix it)


@dataclass
class SkillRun:
    skill: Skill
    lines: list[ScenarioLines]
    outputs: list[Output]
    scores: list[LineScore]
    gate: Gate
    seconds: float
    judge: JudgeNoise | None = None  # the judge's own noise, with gradings >= 2 (engine/judge_noise.py)
    pairwise: tuple[Comparison, ...] | None = None  # compare.pairwise (engine/pairwise.py)

    @property
    def errors(self) -> int:
        return sum(len(o.errors) for o in self.outputs)


def reused(output: Output, arm: str) -> Output:
    """A copy of `output` as another arm's (engine/arms.py REUSE), marked so that reports say so."""
    copy = deepcopy(output)
    copy.arm = arm
    copy.meta["reusedFrom"] = output.arm
    return copy


class Engine:
    """One pipeline for every command that benchmarks: what varies is given at construction, never
    patched afterwards. `hook` answers or makes each call (live, the response cache, regrade's stored
    answers); `units` picks the (skill, scenario, model, rep) to run (all, a shard); `arms` are what
    each rep runs (baseline and with skill; a new kind of arm is one more entry); `agents` makes the
    outputs of agent scenarios (engine/agent.py; None: the project has none)."""

    def __init__(
        self,
        models: Sequence[Model],
        grader: Model | None,
        limiter: PriorityLimiter,
        settings: Settings,
        listener: Listener | None = None,
        tests: CodeTests | None = None,
        redact: Callable[[str], str] = lambda text: text,
        *,
        hook: CallHook = LIVE,
        units: UnitFilter = every_unit,
        arms: Sequence[Arm] = DEFAULT_ARMS,
        agents: AgentOutputs | None = None,
        warn: Callable[[str], None] | None = None,
        more_graders: Sequence[Model] = (),
    ) -> None:
        self.models = tuple(models)
        self.grader = grader
        self.more_graders = tuple(more_graders)  # `grader` as a list: every answer graded by each judge
        self.limiter = limiter
        self.settings = settings
        self.listener: Listener = listener or NoListener()
        self.tests = tests
        self.redact = redact
        self.hook = hook
        self.units = units
        self.arms = tuple(arms)
        self._seq = 0
        self.agents = agents
        self.breaker = Breaker(warn)  # a model whose endpoint is dead stops being called (engine/breaker.py)

    async def call(self, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        """Every model call goes through here: the hook first (a hit takes no slot and calls no model),
        then under the shared limit and the per-call timeout. Failures are returned, not raised, except
        an adapter that cannot start at all, which stops the command."""
        return await self.hook.call(self._call, model, prompt, priority, tag)

    async def _call(self, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        """One call made: under a slot and the timeout, unless the model's breaker is open (then not
        sent); its outcome told to the breaker. A call that waits in a provider batch (batch mode,
        adapters/batch.py) takes no slot and has no per-call timeout: the batch holds it."""
        if (cut := self.breaker.refused(model.label)) is not None:
            return Call(None, cut, 0.0)
        if getattr(model.adapter, "waits_in_batch", False):
            return await self._made(model, prompt, tag, None)
        async with self.limiter.slot(priority):
            if (cut := self.breaker.refused(model.label)) is not None:  # opened while this call waited
                return Call(None, cut, 0.0)
            return await self._made(model, prompt, tag, self.settings.timeout_seconds)

    async def _made(self, model: Model, prompt: str, tag: CallTag, timeout: float | None) -> Call:
        started = time.monotonic()
        key = prompt_cache_key(tag)
        ctx = CallContext(self.settings.timeout_seconds, self.settings.cwd, tag.attachments, tag.stable, key)
        where = endpoint(model.adapter.describe())
        kind: str | None = None
        try:
            async with asyncio.timeout(timeout):  # no task of its own, as wait_for makes; None: no limit
                answer = await model.adapter.complete(prompt, ctx)
            call = Call(answer, None, time.monotonic() - started)
        except AdapterStartError:
            raise
        except TimeoutError:
            seconds = self.settings.timeout_seconds
            call, kind = Call(None, f"timed out after {seconds} s", time.monotonic() - started), UNREACHABLE
        except Exception as e:  # any failure of one call is data about that output
            reason = str(e) or type(e).__name__
            call = Call(None, self.redact(reason), time.monotonic() - started)
            if isinstance(e, Unreachable):
                kind, where = UNREACHABLE, e.endpoint
        self.breaker.record(model.label, where, call.error, kind)
        return call

    def priority(self, skill_index: int, kind: int) -> tuple[int, ...]:
        """Gradings before generations, earlier skills first, then first come first served."""
        self._seq += 1
        return (skill_index, kind, self._seq)

    def lines(self, skill: Skill) -> list[ScenarioLines]:
        """Each scenario's lines: its criteria and, where it has an output contract, its code tests."""
        tests = self.tests
        return [
            ScenarioLines(sc, tests.test_names(skill.name, sc.id) if tests and sc.output else ())
            for sc in skill.evals.scenarios
        ]

    async def run_skill(self, skill: Skill, skill_index: int) -> SkillRun:
        """Every arm of every unit the filter keeps, graded and tested as each output exists; then the
        scores and gate, and with --top-up (engine/topup.py) more reps of what was inconclusive."""
        started = time.monotonic()
        lines = self.lines(skill)
        if self.agents is not None:  # agent scenarios: checks and the skill line are lines too
            lines = [
                ScenarioLines(sl.scenario, self.agents.line_names(sl.scenario, sl.tests)) if sl.scenario.agent else sl
                for sl in lines
            ]
        reps = self.settings.reps
        mine = [
            (sl, m, rep)
            for sl in lines
            for m in self.models
            for rep in range(1, reps + 1)
            if self.units(skill.name, sl.scenario.id, m.label, rep)
        ]
        outputs: list[Output] = []
        done = 0

        async def one_rep(sl: ScenarioLines, model: Model, rep: int) -> None:
            nonlocal done
            plans = [(arm, arm.plan(skill, sl.scenario)) for arm in self.arms]
            made = list(
                await asyncio.gather(
                    *(self._output(skill, skill_index, sl, model, rep, arm) for arm, p in plans if p == RUN)
                )
            )
            # An arm that reuses takes the with-skill output as its own: the same text would be sent.
            copies = [reused(o, arm.name) for arm, p in plans if p == REUSE for o in made if o.arm == WITH_SKILL]
            for copy in copies:
                self.listener.output_done(skill, copy, sl)  # its file and progress line, like any output
            outputs.extend([*made, *copies])
            done += 1
            self.listener.rep_done(skill, sl.scenario.id, model.label, rep, done, len(mine))

        async with asyncio.TaskGroup() as group:
            for sl, model, rep in mine:
                group.create_task(one_rep(sl, model, rep))
        if self.agents is not None:  # agent scenarios: a JSON-lines check's entries become its lines
            lines = self.agents.final_lines(lines, outputs)
        run = await self.settle(skill, lines, outputs, time.monotonic() - started, one_rep)
        if self.settings.pairwise and self.grader is not None:
            run = replace(run, pairwise=await self.compare(skill, skill_index, run.outputs))
        return run

    async def compare(self, skill: Skill, skill_index: int, outputs: Sequence[Output]) -> tuple[Comparison, ...]:
        """compare.pairwise: each rep's baseline and with-skill answers, blind, by the (first) judge."""
        judge = self.grader
        assert judge is not None

        async def call(prompt: str, tag: CallTag) -> tuple[str | None, str | None]:
            got = await self.call(judge, prompt, self.priority(skill_index, GRADE), tag._replace(skill=skill.name))
            return (got.answer.text, None) if got.answer is not None else (None, got.error)

        scenarios = skill.evals.scenarios
        criteria = {sc.id: sc.criteria for sc in scenarios}
        tasks = {sc.id: sc.prompt for sc in scenarios}
        return tuple(await compare(call, outputs, criteria, tasks, self.settings.pairwise_seed))

    async def settle(
        self,
        skill: Skill,
        lines: Sequence[ScenarioLines],
        outputs: list[Output],
        seconds: float,
        run_rep: RepRunner | None = None,
    ) -> SkillRun:
        """The scores and gate of a skill's outputs (sorted in place): after run_skill's reps, or of
        outputs made elsewhere (merge's shards). A top-up needs `run_rep`, and only run_skill has one."""
        settings = self.settings
        top_up = settings.top_up and run_rep is not None
        arm_names = [a.name for a in self.arms]
        rep = run_rep or _no_reps
        scores, gate = await settle(lines, self.models, outputs, settings.gate, settings.reps, top_up, rep, arm_names)
        noise = judge_noise(lines, outputs, settings.max_split)
        return SkillRun(skill, list(lines), outputs, scores, gate, seconds, noise)

    async def _output(
        self, skill: Skill, skill_index: int, sl: ScenarioLines, model: Model, rep: int, arm: Arm
    ) -> Output:
        sc = sl.scenario
        if sc.agent is not None and self.agents is not None:  # agent scenarios: an agent run makes the output
            return await self.agents.output(self, skill, skill_index, sl, model, rep, arm)
        prompt = arm.prompt(sc, skill, self.settings.template)
        out = Output(scenario=sc.id, model=model.label, rep=rep, arm=arm.name, prompt_chars=len(prompt))
        stable = model_stable(arm.name, arm.text(skill), self.settings.template)
        tag = CallTag("generate", sc.id, rep, arm.name, skill=skill.name, attachments=sc.attachments, stable=stable)
        answer, error, seconds = await self.call(model, prompt, self.priority(skill_index, GENERATE), tag)
        out.seconds = seconds
        where = f"rep {rep} {arm.words}"
        if answer is None:
            out.error = error
            out.errors.append(f"{where}: the generation failed ({error}); its lines count as 0")
        else:
            out.text, out.usage, out.meta = answer.text, answer.usage, dict(answer.meta)
            await self.judge(out, skill, skill_index, sc, where, self._price(model))
        self.listener.output_done(skill, out, sl)
        return out

    async def judge(
        self, out: Output, skill: Skill, skill_index: int, sc: Scenario, where: str, price: Price | None = None
    ) -> None:
        """Every line of an answer that exists (`out.text`): graded, code-tested and checked without a
        model. A run's outputs come here, and so do `check --graders`'s reference answers."""
        jobs = []
        if sc.criteria and self.grader is not None:
            jobs.append(self.grade(out, sc, skill_index, where, skill.name))
        if sc.output is not None and self.tests is not None:
            jobs.append(self._test(out, skill, sc.id, where))
        await asyncio.gather(*jobs)
        if sc.scored != sc.criteria:  # assertions and budget limits: graded here, without a model
            grade_model_free(out, sc, price, where)

    def _price(self, model: Model) -> Price | None:
        """The config's price of a model, by its label, else by its id (as the cost line finds it)."""
        prices = self.settings.prices
        return prices.get(model.label) or prices.get(str(model.adapter.describe().get("id", "")))

    async def grade(self, out: Output, sc: Scenario, skill_index: int, where: str, skill: str) -> None:
        """The output's criteria graded `gradings` times, the majority kept (notes for ties and failures)."""
        assert out.text is not None and self.grader is not None
        criteria = sc.criteria
        evidence = self.settings.evidence is not None
        prompt = grader_prompt(self.settings.grader_rules, criteria, out.text, sc.judge_context, evidence)
        stable = grader_stable(self.settings.grader_rules, criteria, sc.judge_context)
        judges = (self.grader, *self.more_graders)
        n = self.settings.gradings
        out.gradings = list(
            await asyncio.gather(
                *(
                    self._grade_once(j * n + k, prompt, len(criteria), skill_index, out, skill, judge, stable)
                    for j, judge in enumerate(judges)
                    for k in range(1, n + 1)
                )
            )
        )
        if self.more_graders:
            for g in out.gradings:
                g.judge = judges[(g.k - 1) // n].label
        good = [g.verdicts for g in out.gradings if g.verdicts is not None]
        failed = [g for g in out.gradings if g.verdicts is None]
        if not good:
            why = "; ".join(f"grading {g.k}: {g.error}" for g in failed)
            out.errors.append(f"{where}: every grading failed ({why}); its criteria count as 0")
            out.verdicts = [False] * len(criteria)
            return
        for g in failed:
            out.notes.append(f"{where}: grading {g.k} failed ({g.error}) and is left out of the vote")
        out.notes += _unsupported(out.gradings, where) if self.settings.evidence == "required" else []
        vote = majority(good, len(criteria))
        out.verdicts = vote.verdicts
        for i in vote.ties:
            yes = sum(1 for v in good if v[i - 1])
            out.notes.append(f"{where}: criterion {i}: the gradings split {yes}-{len(good) - yes}; counted as NO")

    async def _grade_once(
        self,
        k: int,
        prompt: str,
        n: int,
        skill_index: int,
        out: Output,
        skill: str,
        judge: Model,
        stable: tuple[int, ...] = (),
    ) -> Grading:
        """A failed or unparseable grading is retried once."""
        g = Grading(k=k)
        for attempt in (1, 2):
            tag = CallTag("grade", out.scenario, out.rep, out.arm, k, attempt, out.model, skill, stable=stable)
            answer, error, seconds = await self.call(judge, prompt, self.priority(skill_index, GRADE), tag)
            g.seconds += seconds
            if answer is None:
                g.attempt_errors.append(f"the call failed: {error}")
                g.replies.append("")
                continue
            g.replies.append(answer.text)
            g.usage = answer.usage
            try:
                if self.settings.evidence is None:
                    g.verdicts = parse_verdicts(answer.text, n)
                else:
                    g.said, g.quotes = parse_with_evidence(answer.text, n)
                    g.found = [quote_span(out.text or "", q) is not None for q in g.quotes]
                    g.verdicts = counted(g.said, g.found, self.settings.evidence == "required")
                return g
            except Unparseable as e:
                g.attempt_errors.append(f"unparseable reply: {e}")
        g.error = g.attempt_errors[-1]
        return g

    async def _test(self, out: Output, skill: Skill, scenario_id: str, where: str) -> None:
        assert out.text is not None and self.tests is not None
        try:
            run = await self.tests.run(skill.name, scenario_id, out.text)
        except AdapterStartError:
            raise
        except Exception as e:  # the session failing on one answer is an error of that answer, not a crash
            out.errors.append(f"{where}: the code tests could not run ({self.redact(str(e) or type(e).__name__)})")
            return
        out.tests = run
        if run.error:
            out.errors.append(f"{where}: the code tests could not run ({self.redact(run.error)}); its tests count as 0")


def _unsupported(gradings: Sequence[Grading], where: str) -> list[str]:
    """grader.evidence: required: a note per grading whose YES counted as NO for want of found evidence."""
    out = []
    for g in gradings:
        if g.said is None or g.verdicts is None:
            continue
        lost = [str(i) for i, (said, kept) in enumerate(zip(g.said, g.verdicts, strict=True), 1) if said and not kept]
        if lost:
            out.append(
                f"{where}: grading {g.k}: criterion {', '.join(lost)}: YES without evidence found in the answer; "
                "counted as NO (grader.evidence: required)"
            )
    return out
