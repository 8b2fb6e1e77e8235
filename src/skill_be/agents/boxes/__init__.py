"""Where an agent runs, and its checks afterwards: the one interface every agent box implements, what a
run and a check give back, and the boxes by name (a scenario's `agent.sandbox`), each module imported
only when its name is used.

- `docker` (boxes/docker.py): a container per run from skill-be's image, no network but the egress
  proxy to the configured providers (boxes/egress.py), the checks in a fresh container without key
  or network; the programs that run inside are boxes/box_main.py and boxes/egress_main.py.
- `process` (boxes/process.py): this machine, as the user who runs skill-be, in a fresh temporary
  folder: the user's choice, never a fallback.

The promises every box keeps, each an attack with its control, are the agent box contract suite
(tests/integration/agent_run/test_box_contract.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from skill_be import __version__
from skill_be.agents.drivers.base import AgentDriver, AgentSetup, ModelEndpoint
from skill_be.agents.workspace import Files

IMAGE = f"skill-be:{__version__}"  # has the CLIs, Node 22, Python, git and rg

# Box name (`agent.sandbox`) -> its module, which has `create(settings, warn) -> AgentBox`.
BOXES: Mapping[str, str] = {
    "docker": "skill_be.agents.boxes.docker",
    "process": "skill_be.agents.boxes.process",
}


@dataclass(frozen=True)
class BoxLimits:
    """A container box's limits (the process box has none)."""

    memory_mb: int = 2048
    cpus: float = 2.0
    pids: int = 512
    disk_mb: int = 512  # the /work volume (workspace, home, transcript)
    tmp_mb: int = 256


@dataclass(frozen=True)
class BoxSettings:
    """What a box is opened with. `endpoints` are the providers the agents may reach (none: a box for
    checks alone, as regrade needs). `weaken` names protections switched off: tests only, to show the
    attack each one stops (the contract suite's controls)."""

    image: str = IMAGE
    endpoints: Sequence[ModelEndpoint] = ()
    limits: BoxLimits = BoxLimits()
    weaken: frozenset[str] = frozenset()


@dataclass
class AgentRun:
    """What came back from one agent run."""

    stdout: str = ""
    stderr: str = ""
    exit: str = ""  # the CLI's exit code, "timeout", or "" when it never ran
    workspace: Files | None = None
    error: str | None = None  # skill-be's side: the box or the copy failed
    killed: list[str] = field(default_factory=list)
    # Launch files inside the workspace (the skill, for a CLI that finds it there): not the agent's work.
    installed: Files = field(default_factory=dict)
    start_failed: bool = False  # the CLI could not be started at all (not found): `error` says why


@dataclass(frozen=True)
class CheckResult:
    name: str
    exit: str  # the exit code, "timeout", or "127" when the command was not found
    output: str  # stdout and stderr, the end of it
    cut: int = 0  # bytes of output cut before what is kept


class AgentBox(Protocol):
    """One kind of box. Every failure of a run or of the checks is a value (`AgentRun.error`, the
    error of `run_checks`), never raised: it is an error of that output."""

    name: str

    def driver_options(self, executable: Callable[[], str]) -> dict[str, str]:
        """The options a driver needs to start its CLI in this box (`bin`, `path`); `executable` says
        where the model's adapter finds the CLI on this machine (asked only by a box that runs it here)."""
        ...

    def run_agent(self, driver: AgentDriver, setup: AgentSetup, files: Files) -> AgentRun:
        """The driver's launch for `setup` on a workspace holding `files`, run to its end or its time
        limit; the workspace as the agent left it."""
        ...

    def run_checks(
        self, workspace: Files, check_files: Files, checks: Sequence[tuple[str, str]], timeout: float
    ) -> tuple[list[CheckResult], str | None]:
        """Each `(name, command)` with `sh -c` in a workspace holding `workspace`, the check files at
        `$CHECKS`, no key: each check's result, or an error when the checks could not run."""
        ...

    def describe(self) -> dict[str, object]:
        """What summary.json records of the box."""
        ...

    def close(self) -> None:
        """Stop what is still running and remove what the box made; waits for every removal."""
        ...


def open_box(kind: str, settings: BoxSettings, warn: Callable[[str], None]) -> AgentBox:
    """The box called `kind`; ConfigError (one line) when it cannot open (Docker not reachable)."""
    module = importlib.import_module(BOXES[kind])
    box: AgentBox = module.create(settings, warn)
    return box
