"""How an agent scenario's unit (skill × scenario × model × rep × arm) becomes an Output: the agent
run in its sandbox (through the engine's limit and response cache), its transcript and diff, then
the lines: the judge's criteria over what the agent did, the checks, the skill-loaded line and the
code tests on the file it wrote. The engine hands agent scenarios here (runner.py, `Engine.agents`).

Lines besides the criteria are the scenario's "tests" (engine/gate.py's second kind of line):
`check: <name>` per check (a check whose last line is `{"checks": [...]}` becomes one line per
entry, `check: <name> › <entry>`), and `skill loaded` / `skill not loaded` for expect.skillLoaded.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from skill_be.adapters.base import Answer, Usage
from skill_be.agents.base import AgentDriver, AgentLimits, AgentSetup, ModelEndpoint, SkillToInstall, Transcript
from skill_be.agents.checks import CHECK_PREFIX, check_lines, expand_names
from skill_be.agents.record import composite, record_of, summary_of
from skill_be.agents.workspace import (
    Files,
    WorkspaceError,
    check_files,
    digest,
    folder_to_install,
    git_repo,
    start_files,
)
from skill_be.engine.calls import Call, CallTag, Model
from skill_be.engine.gate import ScenarioLines
from skill_be.engine.observations import Output
from skill_be.project.agent_models import AgentScenario
from skill_be.project.evals import Scenario
from skill_be.project.loader import Skill

if TYPE_CHECKING:
    from skill_be.agents.container import AgentRun, CheckResult
    from skill_be.engine.arms import Arm
    from skill_be.engine.runner import Engine

AGENT_ADAPTERS = ("claude-cli", "pi-cli", "opencode-cli")  # the adapters whose CLI can act as an agent
SKILL_LOADED, SKILL_NOT_LOADED = "skill loaded", "skill not loaded"


class AgentSandbox(Protocol):
    """Where agent runs and checks happen: agents/container.py (Docker) or agents/host_box.py."""

    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files) -> AgentRun: ...
    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]: ...


@dataclass(frozen=True)
class AgentModel:
    """A model under test as an agent: its CLI's driver per sandbox kind (the CLI's path differs in
    the container and on this machine), the endpoint it calls, the CLI's version."""

    drivers: Mapping[str, AgentDriver]
    endpoint: ModelEndpoint
    version: str


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


def skill_lines(agent: AgentScenario) -> tuple[str, ...]:
    if agent.skill_loaded is None:
        return ()
    return (SKILL_LOADED if agent.skill_loaded else SKILL_NOT_LOADED,)


def skill_to_install(skill: Skill) -> SkillToInstall:
    """The whole skill folder (SKILL.md, scripts/, references/, assets/), as a user installs it."""
    return folder_to_install(skill.dir, skill.doc.name, skill.doc.description or "")


class AgentSide:
    """The engine's agent half: built by the command when a project has agent scenarios."""

    def __init__(
        self,
        models: Mapping[str, AgentModel],
        sandboxes: Mapping[str, AgentSandbox],
        redact: Callable[[str], str] = lambda t: t,
        neighbours: Sequence[tuple[str, SkillToInstall]] = (),
    ) -> None:
        self.models = models
        self.neighbours = neighbours  # (folder name, skill): installed in both arms (config `neighbours`)
        self.sandboxes = sandboxes  # by agent.sandbox: docker | process
        self.redact = redact
        self._workspaces: dict[tuple[str, str], Files] = {}
        self._skills: dict[str, SkillToInstall] = {}

    def line_names(self, sc: Scenario, code_tests: tuple[str, ...]) -> tuple[str, ...]:
        """The lines known before the run: code tests, one per check, the skill line."""
        assert sc.agent is not None
        return (*code_tests, *(CHECK_PREFIX + c.name for c in sc.agent.checks), *skill_lines(sc.agent))

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

    def _workspace(self, skill: Skill, sc: Scenario) -> Files:
        key = (skill.name, sc.id)
        if key not in self._workspaces:
            assert sc.agent is not None
            files = start_files(sc.agent)
            self._workspaces[key] = git_repo(files) if sc.agent.git else files
        return self._workspaces[key]

    def _skill(self, skill: Skill) -> SkillToInstall:
        key = str(skill.dir)  # this branch's folder, or the previous version's (engine/arms.py)
        if key not in self._skills:
            self._skills[key] = skill_to_install(skill)
        return self._skills[key]

    def cache_prompt(self, sc: Scenario, am: AgentModel, setup: AgentSetup, files: Files) -> str:
        """What the response cache keys an agent run on, besides the adapter, arm and rep."""
        assert sc.agent is not None
        doc = {
            "mode": "agent",
            "prompt": sc.prompt,
            "workspace": digest(files),
            "skills": [{"name": s.name, "files": digest(s.files)} for s in setup.skills],
            "cli": [am.drivers[sc.agent.sandbox].name, am.version],
            "agent": sc.agent.settings(),
        }
        return json.dumps(doc, sort_keys=True)

    async def output(
        self, engine: Engine, skill: Skill, skill_index: int, sl: ScenarioLines, model: Model, rep: int, arm_of: Arm
    ) -> Output:
        from skill_be.engine.runner import GENERATE

        arm = arm_of.name
        sc = sl.scenario
        agent = sc.agent
        assert agent is not None
        out = Output(scenario=sc.id, model=model.label, rep=rep, arm=arm, prompt_chars=len(sc.prompt))
        where = f"rep {rep} {arm_of.words}"
        am = self.models[model.label]
        try:
            files = self._workspace(skill, sc)
        except (OSError, WorkspaceError) as e:
            return self._fail(engine, skill, sl, out, where, f"the workspace could not be built ({e})")
        setup = AgentSetup(
            prompt=sc.prompt,
            endpoint=am.endpoint,
            skills=(
                *(n for folder, n in self.neighbours if folder != skill.name),
                *((self._skill(shown),) if (shown := arm_of.version(skill)) is not None else ()),
            ),
            tools=agent.tools,
            limits=AgentLimits(agent.max_turns, float(agent.timeout_seconds), agent.max_tokens),
        )
        tag = CallTag("generate", sc.id, rep, arm, skill=skill.name)
        failed: dict[str, Any] = {}
        make = self._maker(engine, am.drivers[agent.sandbox], setup, files, failed, self.sandboxes[agent.sandbox])
        key = self.cache_prompt(sc, am, setup, files)
        priority = engine.priority(skill_index, GENERATE)
        call = await engine.hook.call(make, model, key, priority, tag)
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
        box: AgentSandbox,
    ) -> Callable[[Model, str, tuple[int, ...], CallTag], Any]:
        async def make(model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
            async with engine.limiter.slot(priority):
                started = time.monotonic()
                run = await asyncio.to_thread(box.run_agent, driver, setup, files)
                seconds = time.monotonic() - started
            transcript = _parse(driver, run, setup)
            record = record_of(run, transcript, files, seconds, self.redact)
            # A limit or a kill first (the transcript is cut then), then the CLI's own words, then its exit.
            error = run.error or _stopped(run) or transcript.error or _exit_error(run)
            if error:
                failed["record"] = record
                return Call(None, self.redact(error), seconds)
            usage = Usage(transcript.input_tokens, transcript.output_tokens)
            return Call(Answer(transcript.final_message, usage, {"record": record}), None, seconds)

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
            jobs.append(engine._grade_all(out, sc, skill_index, where, skill.name))
        if agent.checks:
            jobs.append(self._checks(engine, skill_index, agent, after, results, out, where))
        if sc.output is not None and engine.tests is not None:
            jobs.append(self._code_tests(engine, skill, sc, after, results, out, where))
        await asyncio.gather(*jobs)
        if sc.scored != sc.criteria:  # assertions over the agent's final message, and budget limits
            from skill_be.engine.assertions import grade_model_free

            final = (record.get("transcript") or {}).get("finalMessage")
            grade_model_free(
                out, sc, engine.settings.prices.get(out.model), where, text=final if isinstance(final, str) else None
            )
        loaded = skill.doc.name in (record.get("transcript") or {}).get("skillsLoaded", {})
        if agent.skill_loaded is not None:
            results.append(LineResult(skill_lines(agent)[0], loaded == agent.skill_loaded))
        out.tests = AgentLines(results)

    async def _checks(
        self,
        engine: Engine,
        skill_index: int,
        agent: AgentScenario,
        after: Files,
        results: list[LineResult],
        out: Output,
        where: str,
    ) -> None:
        from skill_be.engine.runner import GRADE

        extra = check_files(agent)
        commands = [(c.name, c.run) for c in agent.checks]
        box = self.sandboxes[agent.sandbox]
        # Under the engine's limit too (as a grading): a checks container is as heavy as a call.
        async with engine.limiter.slot(engine.priority(skill_index, GRADE)):
            rows, error = await asyncio.to_thread(
                box.run_checks, after, extra, commands, float(min(agent.timeout_seconds, 300))
            )
        if error:
            out.errors.append(f"{where}: the checks could not run ({self.redact(error)}); their lines count as 0")
            return
        for name, passed, message in check_lines(rows):
            results.append(LineResult(name, passed, self.redact(message) if message else None))

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


def first_word(command: str) -> str | None:
    """The program a check command starts, where it is a plain name (not a path, an assignment or a
    shell construct): what the preflight looks up."""
    import re
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or not re.fullmatch(r"[A-Za-z0-9._+-]+", words[0]):
        return None
    return words[0]


def check_programs(skills: Sequence[Skill]) -> dict[str, list[tuple[Skill, int, int, str]]]:
    """By sandbox: each check command's program with its place (skill, scenario index, check index)."""
    out: dict[str, list[tuple[Skill, int, int, str]]] = {}
    for skill in skills:
        for i, sc in enumerate(skill.evals.scenarios):
            for j, c in enumerate(sc.agent.checks if sc.agent else ()):
                word = first_word(c.run)
                if word is not None and sc.agent is not None:
                    out.setdefault(sc.agent.sandbox, []).append((skill, i, j, word))
    return out


def preflight_checks(sandboxes: Mapping[str, AgentSandbox], skills: Sequence[Skill]) -> None:
    """Before any model call: every check command's program exists where the checks run (one checks
    container for all of them). Raises ConfigError naming the first that does not."""
    from skill_be.errors import ConfigError
    from skill_be.paths import shown
    from skill_be.project.validation import at_place, path_text

    for kind, found in check_programs(skills).items():
        words = sorted({w for *_, w in found})
        rows, error = sandboxes[kind].run_checks({}, {}, [(w, f"command -v {w}") for w in words], 60.0)
        if error:
            raise ConfigError(f"the check commands could not be looked up: {error}")
        missing = {r.name for r in rows if r.exit != "0"}
        for skill, i, j, word in found:
            if word in missing:
                loc: list[str | int] = ["scenarios", i, "checks", j]
                place = skill.evals.places.find(loc) if skill.evals.places else None
                where = "skill-be's image" if kind == "docker" else "this machine's PATH"
                raise ConfigError(
                    f"{at_place(shown(skill.evals.path), place)}: {path_text(loc)}: {word!r} is not a command in "
                    f"{where}, where the checks run; install it in the workspace's setup or fix the command"
                )


def after_files(before: Files, record: Mapping[str, Any]) -> Files:
    """The finished workspace: the start files with the record's changes applied."""
    after = dict(before)
    for path, b64 in (record.get("changed") or {}).items():
        after[path] = base64.b64decode(b64)
    for path in record.get("deleted") or ():
        after.pop(path, None)
    return after


def _parse(driver: AgentDriver, run: AgentRun, setup: AgentSetup) -> Transcript:
    try:
        return driver.parse(run.stdout, setup)
    except Exception as e:  # a stream the driver cannot read is an error of this output
        return Transcript(final_message="", turns=0, error=f"the CLI's output could not be read ({e})")


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


def check_agent_models(skills: Sequence[Skill], adapters: Sequence[tuple[str, str, str]]) -> None:
    """Before any model call: every model under test can act as an agent when a skill has an agent
    scenario. `adapters`: (label, adapter name, where in the config). Raises ConfigError."""
    from skill_be.errors import ConfigError

    for skill in skills:
        for sc in skill.evals.scenarios:
            if sc.agent is None:
                continue
            for label, adapter, where in adapters:
                if adapter not in AGENT_ADAPTERS:
                    raise ConfigError(
                        f'{skill.evals.at(sc.id, "mode")}: scenario "{sc.id}" is an agent scenario, and model "{label}" '
                        f"({where}) uses adapter {adapter}, which cannot act as an agent; use "
                        f"{', '.join(AGENT_ADAPTERS)} for agent scenarios, or put them in another config"
                    )


__all__ = ["AGENT_ADAPTERS", "AgentModel", "AgentSandbox", "AgentSide", "check_agent_models", "replace"]
