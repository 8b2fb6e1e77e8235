"""Sandboxes that run an answer's code tests, behind one interface, chosen by `codeTests.sandbox`.

A sandbox hands out slots. A slot runs one answer at a time: it starts a runner (a channel) before
the answer arrives, so the start costs nothing on the answer's path, and it gets a fresh
environment when a start fails. The pool spreads the answers over the slots.

Verdicts: in every sandbox the runner (node/runner.mjs) keeps the tests and decides each verdict,
and the answer's code runs in a process of its own (node/host.mjs), under a uid of its own where the
runner may switch to one (root, and always in Docker), reached through a synchronous membrane
(node/membrane.mjs) so the code-test contract is unchanged. Chosen over SES (lockdown and a
compartment in the runner's process: undone by any native module, /proc/self/mem through node:fs, or
a listed package that exposes `process`, and it breaks packages that change built-ins), over Node's
permission model (files and child processes only; the built-ins stay shared) and over both
combined: another process under another uid is out of reach of all of these, for one round trip
per operation that crosses."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from skill_be.codetests.outcome import TestRun, errored
from skill_be.codetests.protocol import Channel, Request, ping, supervise

# name -> module; each module has `create(settings: Settings, warn) -> Sandbox`
SANDBOXES: Mapping[str, str] = {
    "docker": "skill_be.codetests.sandbox.docker",
    "process": "skill_be.codetests.sandbox.process",
    "bwrap": "skill_be.codetests.sandbox.bwrap",
}
PING_TIMEOUT_S = 60


class SandboxError(Exception):
    """A sandbox, or one of its runners, could not be started."""


@dataclass(frozen=True)
class Work:
    """The compiled tests of the skills that share one package list."""

    key: str  # short and unique within the session
    folder: Path  # on this machine: package.json, node_modules/ (the wrapper), tests/, runs/
    packages: Path | None  # the installed packages' node_modules folder, when the list has any
    language: str = "typescript"  # python: its tests are test_<scenario>.py, its packages pip's


@dataclass(frozen=True)
class Settings:
    node: str  # this machine's node (the process runner's)
    works: tuple[Work, ...]
    run_id: str  # labels what this session creates
    image: str
    memory_mb: int
    cpus: float
    pids: int
    # Protections switched off, by name; only tests do this, to show an attack works without them.
    weaken: frozenset[str] = frozenset()
    # The language of the tests this sandbox runs: "typescript" (Node, node/) or "python" (the harness
    # folder python_env.build_harness made, run by `python`, this machine's interpreter).
    language: str = "typescript"
    python: str = ""
    harness: Path | None = None

    @property
    def harness_dir(self) -> Path:
        """The folder a sandbox ships as the runner's and the answer's harness (`h/` in Docker)."""
        if self.harness is not None:
            return self.harness
        from skill_be.codetests.nodefiles import NODE_DIR

        return NODE_DIR

    @property
    def interpreter(self) -> str:
        """What runs the runner and the answer's process on this machine: node, or python."""
        return self.python if self.language == "python" else self.node


class Slot(Protocol):
    def open(self) -> OpenChannel:
        """Start a runner that waits for its request; SandboxError when it cannot be started."""

    def base(self, work: Work) -> str:
        """The work folder as the runner sees it."""

    def prepare(self, request: Request, work: Work) -> Request:
        """The request as this slot's runner takes it: its base folder, the answer's uid and limits."""

    def finished(self, work: Work, run: str) -> None:
        """The answer `run` is done: remove what it left, where the next start does not."""

    def retire(self) -> None:
        """A start failed: the next open() starts from a fresh environment."""

    def close(self) -> None:
        """Stop the runner and remove the slot's environment."""


class OpenChannel(Channel, Protocol):
    def start_failed(self) -> bool:
        """The runner never got to run the tests for a reason of the sandbox's own (a retry may help)."""


class Sandbox(Protocol):
    name: str

    def new_slot(self) -> Slot: ...

    def describe(self) -> dict[str, object]: ...

    def close(self) -> list[str]:
        """Remove everything the sandbox created; the warnings it could not help."""


def create(kind: str, settings: Settings, warn: Callable[[str], None]) -> Sandbox:
    module = importlib.import_module(SANDBOXES[kind])
    sandbox: Sandbox = module.create(settings, warn)
    return sandbox


@dataclass
class _SlotState:
    slot: Slot
    ready: OpenChannel | None = None


class Pool:
    """At most `size` answers at a time, one per slot; slots are made on demand."""

    def __init__(self, sandbox: Sandbox, size: int) -> None:
        self.sandbox = sandbox
        self.size = max(1, size)
        self.idle: asyncio.Queue[_SlotState] = asyncio.Queue()
        self.made: list[_SlotState] = []
        self.lock = asyncio.Lock()
        self.closed = False

    async def warm(self) -> str | None:
        """Make the first slot and check that its runner starts: None when it does, else why not.

        SandboxError when the slot itself cannot be made."""
        state = await self._take()
        try:
            channel = await asyncio.to_thread(state.slot.open)
            problem = await asyncio.to_thread(ping, channel, PING_TIMEOUT_S)
            if problem is None:
                state.ready = await asyncio.to_thread(state.slot.open)
            return problem
        finally:
            self.idle.put_nowait(state)

    async def _take(self) -> _SlotState:
        async with self.lock:
            if self.idle.empty() and len(self.made) < self.size:
                state = _SlotState(slot=await asyncio.to_thread(self.sandbox.new_slot))
                self.made.append(state)
                return state
        return await self.idle.get()

    async def run(self, work: Work, request: Request) -> TestRun:
        try:
            state = await self._take()
        except SandboxError as e:
            return errored(request.names, str(e))
        # The slot goes back to the pool when its threads are done, not when this task is cancelled
        # (SIGINT, a timeout): a thread cannot be stopped, and two on one slot would share it. The
        # next runner starts after the answer's result is returned: off the answer's path.
        done = asyncio.ensure_future(asyncio.to_thread(self._run, state, work, request))

        def reopen(_: object) -> None:
            again = asyncio.ensure_future(asyncio.to_thread(self._reopen, state))
            again.add_done_callback(lambda _: self.idle.put_nowait(state))

        done.add_done_callback(reopen)
        return await asyncio.shield(done)

    def _run(self, state: _SlotState, work: Work, request: Request) -> TestRun:
        slot = state.slot
        run: TestRun | None = None
        for attempt in (1, 2):
            channel, state.ready = state.ready, None
            req = slot.prepare(replace(request, run=secrets.token_hex(8)), work)
            try:
                if channel is None:
                    channel = slot.open()
            except SandboxError as e:
                slot.retire()
                run = errored(request.names, str(e))
                continue
            try:
                run = supervise(channel, req)
            finally:
                slot.finished(work, req.run)
            if run.error is not None and channel.start_failed() and attempt == 1:
                slot.retire()
                continue
            break
        assert run is not None
        return run

    def _reopen(self, state: _SlotState) -> None:
        if not self.closed:
            with contextlib.suppress(SandboxError):
                state.ready = state.slot.open()

    def close(self) -> list[str]:
        self.closed = True
        for state in self.made:
            with contextlib.suppress(Exception):
                if state.ready is not None:
                    state.ready.stop()
            with contextlib.suppress(Exception):
                state.slot.close()
        return self.sandbox.close()
