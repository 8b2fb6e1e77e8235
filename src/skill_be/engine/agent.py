"""The engine's seam to agent scenarios: how a unit (skill × scenario × model × rep × arm) of an agent
scenario becomes an Output. The agent run goes to its box (agents/boxes/) through the engine's limit
and call hook (the response cache, regrade's stored records); its outcome (transcript, record, error)
comes from agents/runs.py; then the lines: the judge's criteria over what the agent did
(`Engine.grade`), the checks in their box, the skill-loaded line and the code tests on the file it
wrote. Everything read from the user's files arrives as data (agents/inputs.py `AgentInputs`): this
module reads no file and starts no process.

Lines besides the criteria are the scenario's "tests" (engine/gate.py's second kind of line), named
by agents/checks.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skill_be.adapters.base import Answer
from skill_be.agents.boxes import AgentBox
from skill_be.agents.checks import expand_names, line_names, skill_lines
from skill_be.agents.drivers.base import AgentDriver, AgentLimits, AgentSetup, McpServerSpec, ModelEndpoint
from skill_be.agents.expect import expect_line_names, expect_lines, shared_calls
from skill_be.agents.inputs import AgentInputs
from skill_be.agents.record import after_files, composite, summary_of
from skill_be.agents.runs import check_results, outcome
from skill_be.agents.workspace import Files, digest
from skill_be.engine.breaker import same_way
from skill_be.engine.calls import GENERATE, GRADE, Call, CallTag, Model
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.observations import Output
from skill_be.project.evals import Scenario
from skill_be.project.loader import Skill

if TYPE_CHECKING:
    from skill_be.engine.arms import Arm
    from skill_be.engine.runner import Engine


@dataclass(frozen=True)
class AgentModel:
    """A model under test as an agent: its CLI's driver per box (the CLI's path differs in the
    container and on this machine), the endpoint it calls, the CLI's version per box (the image's CLI
    in the container, this machine's in the process box: the one that runs is the one the cache keys)."""

    drivers: Mapping[str, AgentDriver]
    endpoint: ModelEndpoint
    versions: Mapping[str, str]


@dataclass(frozen=True)
class LineResult:
    name: str
    passed: bool
    message: str | None = None


@dataclass(frozen=True)
class AgentLines:
    """The scenario's non-criterion lines for one output (the engine's TestRun shape)."""

    results: Sequence[LineResult]
    error: str | None = None

    def to_json(self) -> Mapping[str, object]:
        """The code tests' shape (codetests/outcome.py), so every reader of tests.json reads it."""
        return {
            "passed": sum(r.passed for r in self.results),
            "total": len(self.results),
            "error": self.error,
            "tests": [{"name": r.name, "passed": r.passed, "message": r.message} for r in self.results],
        }


class AgentSide:
    """The engine's agent half (runner.py `AgentOutputs`): built by the command when a project has
    agent scenarios, with the boxes by `agent.sandbox` and the inputs already read."""

    def __init__(
        self,
        models: Mapping[str, AgentModel],
        boxes: Mapping[str, AgentBox],
        inputs: AgentInputs,
        redact: Callable[[str], str] = lambda t: t,
        own: Mapping[tuple[str, str], AgentBox] | None = None,
    ) -> None:
        self.models = models
        self.boxes = boxes
        self.inputs = inputs
        self.redact = redact
        self.own = own or {}  # (skill, scenario id) -> the box of a scenario with an environment

    def box(self, skill: Skill, sc: Scenario) -> AgentBox:
        """Where the scenario's agent and checks run: its environment's image, else its sandbox."""
        assert sc.agent is not None
        return self.own.get((skill.name, sc.id)) or self.boxes[sc.agent.sandbox]

    def line_names(self, sc: Scenario, code_tests: tuple[str, ...]) -> tuple[str, ...]:
        """The lines known before the run: code tests, one per check, the skill line."""
        assert sc.agent is not None
        return (*line_names(sc.agent, code_tests), *expect_line_names(sc.agent.world))

    def final_lines(self, lines: list[ScenarioLines], outputs: Sequence[Output]) -> list[ScenarioLines]:
        """A check that printed `{"checks": [...]}` is replaced by its entries' lines, in the order seen."""
        out = []
        for sl in lines:
            if sl.scenario.agent is None:
                out.append(sl)
                continue
            seen = [o.tests for o in outputs if o.scenario == sl.scenario.id and o.tests is not None]
            out.append(ScenarioLines(sl.scenario, expand_names(sl.tests, [[r.name for r in t.results] for t in seen])))
        return out

    def cache_prompt(
        self, sc: Scenario, am: AgentModel, setup: AgentSetup, files: Files, image: str | None = None
    ) -> str:
        """What the response cache keys an agent run on, besides the adapter, arm and rep."""
        assert sc.agent is not None
        doc = {
            "mode": "agent",
            "prompt": sc.prompt,
            "workspace": digest(files),
            "skills": [{"name": s.name, "files": digest(s.files)} for s in setup.skills],
            "cli": [am.drivers[sc.agent.sandbox].name, am.versions.get(sc.agent.sandbox, "unknown")],
            "agent": sc.agent.settings(),
        }
        if image is not None:  # an environment's image (its tag is the hash of what it is made of)
            doc["environment"] = image
        if setup.mcp or setup.follow_ups:
            doc["world"] = {"mcp": [[m.name, m.command, list(m.args), dict(m.env)] for m in setup.mcp],
                            "followUps": list(setup.follow_ups)}  # fmt: skip
        return json.dumps(doc, sort_keys=True)

    def _setup(self, skill: Skill, sc: Scenario, am: AgentModel, arm: Arm) -> AgentSetup:
        agent = sc.agent
        assert agent is not None
        shown = arm.version(skill)
        return AgentSetup(
            prompt=sc.prompt,
            endpoint=am.endpoint,
            skills=(
                *(n for folder, n in self.inputs.neighbours if folder != skill.name),
                *((self.inputs.skill(shown),) if shown is not None else ()),
            ),
            tools=agent.tools,
            limits=AgentLimits(agent.max_turns, float(agent.timeout_seconds), agent.max_tokens),
            mcp=tuple(McpServerSpec(m.name, m.command, m.args, dict(m.env)) for m in agent.world.mcp),
            follow_ups=agent.world.follow_ups,
        )

    async def output(
        self, engine: Engine, skill: Skill, skill_index: int, sl: ScenarioLines, model: Model, rep: int, arm: Arm
    ) -> Output:
        sc = sl.scenario
        agent = sc.agent
        assert agent is not None
        out = Output(scenario=sc.id, model=model.label, rep=rep, arm=arm.name, prompt_chars=len(sc.prompt))
        where = f"rep {rep} {arm.words}"
        am = self.models[model.label]
        files = self.inputs.workspaces[(skill.name, sc.id)]
        if isinstance(files, str):
            return self._fail(engine, skill, sl, out, where, files)
        setup = self._setup(skill, sc, am, arm)
        tag = CallTag("generate", sc.id, rep, arm.name, skill=skill.name)
        failed: dict[str, Any] = {}
        box = self.box(skill, sc)
        make = self._maker(engine, am.drivers[agent.sandbox], setup, files, failed, box)
        own_image = getattr(self.own.get((skill.name, sc.id)), "image", None)  # an environment's image
        key = self.cache_prompt(sc, am, setup, files, own_image)
        call = await engine.hook.call(make, model, key, engine.priority(skill_index, GENERATE), tag)
        out.seconds = call.seconds
        if call.answer is None:
            out.agent = failed.get("record")
            return self._fail(engine, skill, sl, out, where, f"the agent run failed ({call.error})")
        stored = call.answer.meta.get("record")
        if not isinstance(stored, dict):  # regrade of a run that kept no agent record
            return self._fail(engine, skill, sl, out, where, "the agent run left no record (transcript, workspace)")
        record: dict[str, Any] = dict(stored)
        out.agent, out.usage = dict(record), call.answer.usage
        out.meta = {"agent": summary_of(record, skill.doc.name)}
        out.text = composite(record)
        await self._lines(engine, skill, skill_index, sc, out, where, files, record)
        engine.listener.output_done(skill, out, sl)
        return out

    def _maker(
        self,
        engine: Engine,
        driver: AgentDriver,
        setup: AgentSetup,
        files: Files,
        failed: dict[str, Any],
        box: AgentBox,
    ) -> Callable[[Model, str, tuple[int, ...], CallTag], Any]:
        async def make(model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
            breaker, where = engine.breaker, f"the {driver.name} CLI"
            async with engine.limiter.slot(priority):
                if (cut := breaker.refused(model.label)) is not None:  # its every run failed the same way
                    return Call(None, cut, 0.0)
                started = time.monotonic()
                run = await asyncio.to_thread(box.run_agent, driver, setup, files)
                seconds = time.monotonic() - started
            done = outcome(driver, run, setup, files, seconds, self.redact)
            breaker.record(model.label, where, done.error, same_way(done.error) if done.error else None)
            if done.error:
                failed["record"] = done.record
                return Call(None, done.error, seconds)
            return Call(
                Answer(done.transcript.final_message, done.transcript.usage, {"record": done.record}), None, seconds
            )

        return make

    def _fail(self, engine: Engine, skill: Skill, sl: ScenarioLines, out: Output, where: str, why: str) -> Output:
        out.error = why
        out.errors.append(f"{where}: {why}; its lines count as 0")
        if out.agent:
            out.meta = {"agent": summary_of(out.agent, skill.doc.name)}
        engine.listener.output_done(skill, out, sl)
        return out

    async def _lines(
        self,
        engine: Engine,
        skill: Skill,
        skill_index: int,
        sc: Scenario,
        out: Output,
        where: str,
        files: Files,
        record: Mapping[str, Any],
    ) -> None:
        agent = sc.agent
        assert agent is not None and out.text is not None
        after = after_files(files, record)
        results: list[LineResult] = []
        jobs = []
        if sc.criteria and engine.grader is not None:
            jobs.append(engine.grade(out, sc, skill_index, where, skill.name))
        if agent.checks:
            jobs.append(self._checks(engine, skill, skill_index, sc, after, results, out, where))
        if sc.output is not None and engine.tests is not None:
            jobs.append(self._code_tests(engine, skill, sc, after, results, out, where))
        await asyncio.gather(*jobs)
        if sc.scored != sc.criteria:  # assertions over the agent's final message, and budget limits
            from skill_be.engine.assertions import grade_model_free

            final = (record.get("transcript") or {}).get("finalMessage")
            grade_model_free(
                out, sc, engine.settings.prices.get(out.model), where, text=final if isinstance(final, str) else None
            )
        skills_loaded = (record.get("transcript") or {}).get("skillsLoaded") or {}
        if agent.skill_loaded is not None:
            results.append(LineResult(skill_lines(agent)[0], (skill.doc.name in skills_loaded) == agent.skill_loaded))
        world_lines = expect_lines(agent.world, shared_calls(record), skills_loaded)
        results.extend(LineResult(name, passed, message) for name, passed, message in world_lines)
        out.tests = AgentLines(results)

    async def _checks(
        self,
        engine: Engine,
        skill: Skill,
        skill_index: int,
        sc: Scenario,
        after: Files,
        results: list[LineResult],
        out: Output,
        where: str,
    ) -> None:
        agent = sc.agent
        assert agent is not None
        extra = self.inputs.check_files[(skill.name, sc.id)]
        if isinstance(extra, str):
            out.errors.append(f"{where}: the checks could not run ({extra}); their lines count as 0")
            return
        commands = [(c.name, c.run) for c in agent.checks]
        box = self.box(skill, sc)
        # Under the engine's limit too (as a grading): a checks container is as heavy as a call.
        async with engine.limiter.slot(engine.priority(skill_index, GRADE)):
            rows, error = await asyncio.to_thread(
                box.run_checks, after, extra, commands, float(min(agent.timeout_seconds, 300))
            )
        if error:
            out.errors.append(f"{where}: the checks could not run ({self.redact(error)}); their lines count as 0")
            return
        results.extend(LineResult(name, passed, message) for name, passed, message in check_results(rows, self.redact))

    async def _code_tests(
        self,
        engine: Engine,
        skill: Skill,
        sc: Scenario,
        after: Files,
        results: list[LineResult],
        out: Output,
        where: str,
    ) -> None:
        assert sc.agent is not None and engine.tests is not None
        path = sc.agent.output_file or ""
        content = after.get(path)
        if content is None:
            out.errors.append(f"{where}: the agent did not write {path}; its code tests count as 0")
            return
        lang = "python" if path.endswith(".py") else "ts" if path.endswith(".ts") else "js"
        run = await engine.tests.run(skill.name, sc.id, f"```{lang}\n{content.decode('utf-8', 'replace')}\n```\n")
        if run.error:
            out.errors.append(f"{where}: the code tests could not run ({self.redact(run.error)}); its tests count as 0")
            return
        results.extend(LineResult(r.name, r.passed, r.message) for r in run.results)
