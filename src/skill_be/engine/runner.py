"""Runs one skill: every scenario × model × rep × arm, graded and code-tested as soon as it exists."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from skill_be.adapters.base import Adapter, AdapterStartError, Answer, CallContext
from skill_be.engine.gate import Gate, LineScore, ScenarioLines
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.observations import Grading, Output, TestRun
from skill_be.engine.prompts import ARM_WORDS, ARMS, grader_prompt, model_prompt
from skill_be.engine.topup import settle
from skill_be.engine.verdicts import Unparseable, majority, parse_verdicts
from skill_be.project.config import GateConfig
from skill_be.project.loader import Skill

if TYPE_CHECKING:
    from skill_be.engine.agent import AgentSide
    from skill_be.engine.cache import CallHook

GRADE, GENERATE = 0, 1


class CodeTests(Protocol):
    """The part of codetests.session.CodeTestSession the engine uses."""

    def test_names(self, skill: str, scenario_id: str) -> tuple[str, ...]: ...
    async def run(self, skill: str, scenario_id: str, answer: str) -> TestRun: ...


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


@dataclass(frozen=True)
class Model:
    label: str
    adapter: Adapter


class CallTag(NamedTuple):
    """What a model call is for. Everything that decides the answer besides the prompt and the model
    (a rep is an independent sample, so is each grading), for whoever wants to tell calls apart."""

    kind: str  # generate | grade | classify
    scenario: str = ""
    rep: int = 0
    arm: str = ""
    k: int = 0  # the grading's index, 1-based
    attempt: int = 1  # a retried grading is another call: the cache keeps both apart
    model: str = ""  # a grading's: the label of the model whose answer it grades


class Call(NamedTuple):
    """One model call's outcome: the answer, or the reason there is none."""

    answer: Answer | None
    error: str | None
    seconds: float


@dataclass
class SkillRun:
    skill: Skill
    lines: list[ScenarioLines]
    outputs: list[Output]
    scores: list[LineScore]
    gate: Gate
    seconds: float

    @property
    def errors(self) -> int:
        return sum(len(o.errors) for o in self.outputs)


class Engine:
    def __init__(
        self,
        models: Sequence[Model],
        grader: Model | None,
        limiter: PriorityLimiter,
        settings: Settings,
        listener: Listener | None = None,
        tests: CodeTests | None = None,
        redact: Callable[[str], str] = lambda text: text,
    ) -> None:
        self.models = list(models)
        self.grader = grader
        self.limiter = limiter
        self.settings = settings
        self.listener: Listener = listener or NoListener()
        self.tests = tests
        self.redact = redact
        self._seq = 0
        self.cache: CallHook | None = None  # engine/cache.py: run's response cache; regrade's stored answers
        self.only: Callable[[str, str, str, int], bool] | None = None  # (skill, scenario, model, rep) to run
        self.agents: AgentSide | None = None  # agent scenarios (engine/agent.py); set by the command

    async def call(self, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        """Every model call goes through here: under the shared limit and the per-call timeout.
        Failures are returned, not raised, except an adapter that cannot start at all, which stops
        the command."""
        if self.cache is not None:  # a hit takes no slot and calls no model
            return await self.cache.call(self._call, model, prompt, priority, tag)
        return await self._call(model, prompt, priority, tag)

    async def _call(self, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        async with self.limiter.slot(priority):
            started = time.monotonic()
            ctx = CallContext(timeout_seconds=self.settings.timeout_seconds, cwd=self.settings.cwd)
            try:
                answer = await asyncio.wait_for(model.adapter.complete(prompt, ctx), self.settings.timeout_seconds)
                return Call(answer, None, time.monotonic() - started)
            except AdapterStartError:
                raise
            except TimeoutError:
                return Call(None, f"timed out after {self.settings.timeout_seconds} s", time.monotonic() - started)
            except Exception as e:  # any failure of one call is data about that output
                reason = str(e) or type(e).__name__
                return Call(None, self.redact(reason), time.monotonic() - started)

    def priority(self, skill_index: int, kind: int) -> tuple[int, ...]:
        """Gradings before generations, earlier skills first, then first come first served."""
        self._seq += 1
        return (skill_index, kind, self._seq)

    async def run_skill(self, skill: Skill, skill_index: int) -> SkillRun:
        started = time.monotonic()
        lines = [
            ScenarioLines(sc, self.tests.test_names(skill.name, sc.id) if self.tests and sc.output else ())
            for sc in skill.evals.scenarios
        ]
        if self.agents is not None:  # agent hook 1/3: checks and the skill line are lines too
            lines = [
                ScenarioLines(sl.scenario, self.agents.line_names(sl.scenario, sl.tests)) if sl.scenario.agent else sl
                for sl in lines
            ]
        reps = self.settings.reps
        # run --shard: only this shard's reps (results/shards.py); every rep otherwise
        mine = [
            (sl, m, rep)
            for sl in lines
            for m in self.models
            for rep in range(1, reps + 1)
            if self.only is None or self.only(skill.name, sl.scenario.id, m.label, rep)
        ]
        total = len(mine)
        done = 0
        outputs: list[Output] = []

        async def one_rep(sl: ScenarioLines, model: Model, rep: int) -> None:
            nonlocal done
            pair = await asyncio.gather(*(self._output(skill, skill_index, sl, model, rep, arm) for arm in ARMS))
            outputs.extend(pair)
            done += 1
            self.listener.rep_done(skill, sl.scenario.id, model.label, rep, done, total)

        async with asyncio.TaskGroup() as group:
            for sl, model, rep in mine:
                group.create_task(one_rep(sl, model, rep))
        if self.agents is not None:  # agent hook 2/3: a JSON-lines check's entries become its lines
            lines = self.agents.final_lines(lines, outputs)
        # engine/topup.py: scores and gate, and with --top-up more reps of what was inconclusive
        scores, gate = await settle(
            lines, self.models, outputs, self.settings.gate, reps, self.settings.top_up, one_rep
        )
        return SkillRun(skill, lines, outputs, scores, gate, time.monotonic() - started)

    async def _output(
        self, skill: Skill, skill_index: int, sl: ScenarioLines, model: Model, rep: int, arm: str
    ) -> Output:
        sc = sl.scenario
        if sc.agent is not None and self.agents is not None:  # agent hook 3/3: engine/agent.py
            return await self.agents.output(self, skill, skill_index, sl, model, rep, arm)
        prompt = model_prompt(sc, arm, skill.doc.text, self.settings.template)
        out = Output(scenario=sc.id, model=model.label, rep=rep, arm=arm, prompt_chars=len(prompt))
        tag = CallTag("generate", sc.id, rep, arm)
        answer, error, seconds = await self.call(model, prompt, self.priority(skill_index, GENERATE), tag)
        out.seconds = seconds
        where = f"rep {rep} {ARM_WORDS[arm]}"
        if answer is None:
            out.error = error
            out.errors.append(f"{where}: the generation failed ({error}); its lines count as 0")
        else:
            out.text, out.usage, out.meta = answer.text, answer.usage, dict(answer.meta)
            jobs = []
            if sc.criteria and self.grader is not None:
                jobs.append(self._grade_all(out, sc.criteria, skill_index, where))
            if sc.output is not None and self.tests is not None:
                jobs.append(self._test(out, skill, sc.id, where))
            await asyncio.gather(*jobs)
        self.listener.output_done(skill, out, sl)
        return out

    async def _grade_all(self, out: Output, criteria: Sequence[str], skill_index: int, where: str) -> None:
        assert out.text is not None and self.grader is not None
        prompt = grader_prompt(self.settings.grader_rules, criteria, out.text)
        out.gradings = list(
            await asyncio.gather(
                *(
                    self._grade_once(k, prompt, len(criteria), skill_index, out)
                    for k in range(1, self.settings.gradings + 1)
                )
            )
        )
        good = [g.verdicts for g in out.gradings if g.verdicts is not None]
        failed = [g for g in out.gradings if g.verdicts is None]
        if not good:
            why = "; ".join(f"grading {g.k}: {g.error}" for g in failed)
            out.errors.append(f"{where}: every grading failed ({why}); its criteria count as 0")
            out.verdicts = [False] * len(criteria)
            return
        for g in failed:
            out.notes.append(f"{where}: grading {g.k} failed ({g.error}) and is left out of the vote")
        vote = majority(good, len(criteria))
        out.verdicts = vote.verdicts
        for i in vote.ties:
            yes = sum(1 for v in good if v[i - 1])
            out.notes.append(f"{where}: criterion {i}: the gradings split {yes}-{len(good) - yes}; counted as NO")

    async def _grade_once(self, k: int, prompt: str, n: int, skill_index: int, out: Output) -> Grading:
        """A failed or unparseable grading is retried once."""
        assert self.grader is not None
        g = Grading(k=k)
        for attempt in (1, 2):
            tag = CallTag("grade", out.scenario, out.rep, out.arm, k, attempt, out.model)
            answer, error, seconds = await self.call(self.grader, prompt, self.priority(skill_index, GRADE), tag)
            g.seconds += seconds
            if answer is None:
                g.attempt_errors.append(f"the call failed: {error}")
                g.replies.append("")
                continue
            g.replies.append(answer.text)
            g.usage = answer.usage
            try:
                g.verdicts = parse_verdicts(answer.text, n)
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
