"""Trigger evals on the agent CLIs: one agent run per query and rep, through the same drivers and box
as agent scenarios. The skill and its neighbours are installed where the CLI discovers them, in an
empty workspace that is a fresh git repository (no project skill of a folder above it is found), with
a small turn limit (`triggerTurns`) and only the driver's trigger tools (read, and the skill tool);
the choice is read from the transcript: the first offered skill loaded within the first
`triggerTurns` turns (agents often look around first). The run goes through the `process` box:
this machine, a fresh temporary folder, refused when a parent of it holds a skill folder."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skill_be.adapters.base import AdapterStartError, CallContext, CallError
from skill_be.adapters.choice import Choice, Chooser, Offered
from skill_be.agents.boxes import AgentBox
from skill_be.agents.drivers import DRIVERS, driver, endpoint
from skill_be.agents.drivers.base import AgentDriver, AgentLimits, AgentSetup, ModelEndpoint, SkillToInstall
from skill_be.agents.drivers.limit import is_turn_limit
from skill_be.agents.workspace import Files, WorkspaceError, git_repo
from skill_be.proc import tail


class AgentChooser:
    """Chooser for an agent CLI: one agent run per query and rep, in `box`."""

    def __init__(
        self,
        driver: AgentDriver,
        endpoint: ModelEndpoint,
        turns: int,
        files: Mapping[str, Mapping[str, bytes]],  # offered skill name -> its files
        box: AgentBox,
        tools: Sequence[str] | None = None,
    ) -> None:
        self.tools = tools
        self.driver = driver
        self.endpoint = endpoint
        self.turns = turns
        self.files = files
        self.box = box
        self._workspace: Files | None = None

    def workspace(self) -> Files:
        """An empty git repository, made once (the same files for every call)."""
        if self._workspace is None:
            try:
                self._workspace = git_repo({})
            except WorkspaceError as e:
                raise CallError(str(e)) from None
        return self._workspace

    async def choose(self, query: str, offered: Sequence[Offered], ctx: CallContext) -> Choice:
        skills = [SkillToInstall(o.name, o.description, self.files.get(o.name, {})) for o in offered]
        limits = AgentLimits(max_turns=self.turns, timeout_seconds=ctx.timeout_seconds)
        setup = AgentSetup(prompt=query, endpoint=self.endpoint, skills=skills, tools=self.tools, limits=limits)
        run = await asyncio.to_thread(self.box.run_agent, self.driver, setup, self.workspace())
        if run.start_failed:
            raise AdapterStartError(f"a trigger call could not start its agent CLI: {run.error}")
        if run.error is not None:
            raise CallError(run.error)
        if run.exit == "timeout":
            raise CallError(f"timed out after {ctx.timeout_seconds} s")
        if run.exit != "0" and not run.stdout.strip():
            raise CallError(f"exit code {run.exit}: {tail(run.stderr)}")
        t = self.driver.parse(run.stdout, setup)
        names = {o.name for o in offered}
        loaded = sorted((turn, name) for name, turn in t.skills_loaded.items() if name in names and turn <= self.turns)
        # A run that failed before it loaded one of them chose nothing we can know: an error of the
        # call, never a "no skill". Its turn limit is no failure: a trigger run is meant to end there.
        if not loaded and t.error and not is_turn_limit(t.error):
            raise CallError(f"the agent run failed before it loaded a skill: {t.error}")
        if not loaded and run.exit != "0" and t.error is None:
            raise CallError(f"the agent CLI exited with code {run.exit} before it loaded a skill: {tail(run.stderr)}")
        chosen = loaded[0][1] if loaded else None
        reply = f"loaded {chosen} on turn {loaded[0][0]}" if loaded else f"no skill loaded in {t.turns} turns"
        return Choice(chosen, t.usage, reply)


def agent_choosers(
    models: Sequence[tuple[str, Any]],
    turns: int,
    files: Mapping[str, Mapping[str, bytes]],
    box: AgentBox,
    warn: Callable[[str], None] = lambda _: None,
) -> dict[str, Chooser]:
    """A chooser for each (label, adapter) whose adapter is an agent CLI (agents/drivers `DRIVERS`):
    its driver for `box`, the endpoint the adapter's settings name. Without its driver in this build,
    the model is asked with the documented prompt block instead, and a warning says so."""
    out: dict[str, Chooser] = {}
    for label, adapter in models:
        name = str(adapter.entry.adapter)
        if name not in DRIVERS:
            continue
        options = box.driver_options(adapter.executable)  # a CLI that is not there: exit 2, as for any call
        try:
            made = driver(name, **options)
        except ImportError as err:
            warn(
                f"warning: {label}: trigger evals on {name} run the CLI in agent mode, and this build cannot load "
                f"its driver ({err}); its trigger calls ask with the prompt block instead (docs/trigger-evals.md)"
            )
            continue
        out[label] = AgentChooser(made, endpoint(adapter), turns, files, box, made.trigger_tools)
    return out
