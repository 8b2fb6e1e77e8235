"""What `run` and `triage` build before their first model call, in one place: the models under
test, the grader, the triage classifier, the code-test session and the engine that drives them;
and the signal handling around the work."""

from __future__ import annotations

import asyncio
import importlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, cast

from skill_be.adapters.credentials import Redactor, api_key
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry, check_unique, labels
from skill_be.engine.arms import DEFAULT_ARMS, Arm
from skill_be.engine.calls import LIVE, CallHook
from skill_be.engine.limiter import PriorityLimiter
from skill_be.engine.prompts import grader_rules
from skill_be.engine.runner import CodeTests, Engine, Listener, Model, Settings, UnitFilter, every_unit
from skill_be.errors import Interrupted
from skill_be.project.config import AdapterEntry, Config
from skill_be.project.loader import Project
from skill_be.wiring.common import warn

if TYPE_CHECKING:
    from skill_be.engine.agent import AgentSide

T = TypeVar("T")


async def interruptible(work: Callable[[], Awaitable[T]]) -> T:
    """SIGINT and SIGTERM cancel the work: every call in flight is killed on the way out, then the
    command exits 130 or 143. Skills that finished are already written."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[int] = []

    def stop(signum: int) -> None:
        if not received:
            received.append(signum)
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop, signum)
    try:
        with pidfd_children(loop):
            return await work()
    except asyncio.CancelledError:
        if received:
            name = "SIGINT" if received[0] == signal.SIGINT else "SIGTERM"
            warn(f"{name}: stopped the model calls in flight; the skills that finished are written")
            raise Interrupted(received[0]) from None
        raise
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def _pidfd_works() -> bool:
    """Whether this kernel (and a container's seccomp profile) lets a process open a pidfd."""
    if not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


@contextmanager
def pidfd_children(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Python 3.11's asyncio waits for each child process in a thread of its own (ThreadedChildWatcher):
    every model call of a command adapter started a thread, and the loop stopped until it ran. Here the
    loop waits on each child's pidfd instead, as Python 3.12 does by default; the watcher that was
    there comes back on the way out. Nothing changes where pidfds are missing or on 3.12 and later."""
    if sys.version_info >= (3, 12) or not _pidfd_works():
        yield
        return
    policy = asyncio.get_event_loop_policy()
    previous = policy.get_child_watcher()
    if not isinstance(previous, asyncio.ThreadedChildWatcher):  # someone chose another one: theirs
        yield
        return
    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(loop)
    policy.set_child_watcher(watcher)  # closes the threaded one: it has nothing to close
    try:
        yield
    finally:
        policy.set_child_watcher(previous)  # detaches ours; every child was waited for by now


def build_models(config: Config, env: AdapterEnv, registry: AdapterRegistry) -> list[Model]:
    entries = list(config.models)
    check_unique(entries)
    return [
        Model(label, registry.create(e, AdapterEnv(env.root, env.environ, env.redactor, label)))
        for e, label in zip(entries, labels(entries), strict=True)
    ]


def container_only(project: Project, models: Sequence[Model]) -> Sequence[Model]:
    """The models under test whose CLI never runs on this machine: all of them when every scenario is an
    agent scenario in skill-be's container and no skill has trigger evals (agents/preflight.py), else none."""
    if all(sc.agent is None for s in project.skills for sc in s.evals.scenarios):
        return ()  # no agent scenario: every CLI runs here, and a plain run imports no agent machinery
    from skill_be.agents.preflight import host_needs_clis

    return () if host_needs_clis(project.skills) else models


async def preflight(
    entries: Sequence[AdapterEntry], models: Sequence[Model], env: AdapterEnv, boxed: Sequence[Model] = ()
) -> None:
    """Before the first model call: credentials hold (the CI rule) and every adapter can start. The
    CLIs of `boxed` (`container_only`) run only in skill-be's container: their settings are checked,
    not a start here."""
    from skill_be.adapters.cli_common import CliAdapter

    for entry in entries:
        env.redactor.add(api_key(entry, env.environ))
    for m in models:
        if any(m is b for b in boxed) and isinstance(m.adapter, CliAdapter):
            m.adapter.check_settings()
        else:
            await m.adapter.preflight()


async def _nothing() -> None:
    return None


async def open_code_tests(project: Project, keep_deps: bool) -> tuple[CodeTests | None, Callable[[], Awaitable[None]]]:
    """The code-test session for the project's skills that have code tests, and how to close it."""
    if not any(s.has_code_tests for s in project.skills):
        return None, _nothing
    # Imported only when a skill has code tests: the sandbox brings Docker and Node machinery.
    session_module = importlib.import_module("skill_be.codetests.session")
    session = await session_module.CodeTestSession.open(project, keep_deps=keep_deps, warn=warn)
    return cast(CodeTests, session), cast(Callable[[], Awaitable[None]], session.close)


def engine_settings(config: Config, reps: int | None = None) -> Settings:
    return Settings(
        reps=reps or config.reps,
        gradings=config.gradings,
        timeout_seconds=config.timeout_seconds,
        cwd=config.root,
        template=config.with_skill_template,
        grader_rules=config.grader_prompt or grader_rules(config.grader_template),
        gate=config.gate,
        prices=config.pricing,  # budgets' maxCostUsd (engine/assertions.py)
        evidence=config.grader_evidence,
        max_split=config.grader_max_split,
    )


@dataclass(frozen=True)
class Parts:
    """Everything a command drives, built and preflighted; the code-test session is open."""

    project: Project
    redactor: Redactor
    models: list[Model]
    grader: Model | None
    classifier: Model | None
    tests: CodeTests | None
    more_graders: tuple[Model, ...] = ()  # `grader` as a list: the judges after the first

    def engine(
        self,
        settings: Settings,
        concurrency: int,
        listener: Listener | None = None,
        *,
        models: Sequence[Model] | None = None,
        hook: CallHook | None = None,
        units: UnitFilter = every_unit,
        arms: Sequence[Arm] = DEFAULT_ARMS,
        agents: AgentSide | None = None,
    ) -> Engine:
        """The engine over these parts, with what varies by command: the models (regrade's stand-ins),
        the call hook (the response cache, stored answers), the unit filter (a shard), the arms and
        the agent side (agent scenarios)."""
        limiter = PriorityLimiter(concurrency)
        under_test = self.models if models is None else models
        return Engine(
            under_test, self.grader, limiter, settings, listener, self.tests, self.redactor,
            hook=hook or LIVE, units=units, arms=arms, agents=agents, warn=warn, more_graders=self.more_graders,
        )  # fmt: skip

    @property
    def judges(self) -> tuple[Model, ...]:
        return (self.grader, *self.more_graders) if self.grader is not None else ()

    def describe(self) -> dict[str, object]:
        """What summary.json records about the parts: each model's adapter, the grader, the sandbox."""
        tests = cast(Callable[[], Mapping[str, object]], getattr(self.tests, "describe", dict))
        return {
            "models": [{"label": m.label, **m.adapter.describe()} for m in self.models],
            "grader": {"label": self.grader.label, **self.grader.adapter.describe()} if self.grader else None,
            **(
                {"graders": [{"label": m.label, **m.adapter.describe()} for m in self.judges]}
                if self.more_graders
                else {}
            ),
            "codeTests": dict(tests()) if self.tests else None,
        }


@asynccontextmanager
async def assemble(
    project: Project,
    *,
    models: bool = True,
    grader: bool = False,
    classifier: bool = False,
    tested: Project | None = None,
    keep_deps: bool = False,
) -> AsyncIterator[Parts]:
    """Build the adapters that are asked for, preflight them (credentials, can each start), then
    open the code tests of `tested` (default: the project). The session closes on the way out."""
    config = project.config
    redactor = Redactor()
    env = AdapterEnv(root=config.root, environ=dict(os.environ), redactor=redactor)
    registry = AdapterRegistry()
    under_test = build_models(config, env, registry) if models else []
    judges = build_judges(config, env, registry) if grader else []
    triager = config.triage_model if classifier else None
    classify = Model(triager.id, registry.create(triager, env)) if triager else None
    entries = [
        *(config.models if models else ()),
        *(config.graders if judges else ()),
        *([triager] if triager else []),
    ]
    boxed = container_only(project, under_test)
    await preflight(entries, [*under_test, *judges, *([classify] if classify else [])], env, boxed)
    tests, close_tests = await open_code_tests(tested or project, keep_deps)
    try:
        first = judges[0] if judges else None
        yield Parts(project, redactor, under_test, first, classify, tests, tuple(judges[1:]))
    finally:
        await close_tests()
        await close_adapters([*under_test, *judges, *([classify] if classify else [])])


def build_judges(config: Config, env: AdapterEnv, registry: AdapterRegistry) -> list[Model]:
    """The grader, or each judge of `grader` as a list (labelled by id, by adapter:id where ids repeat)."""
    entries = list(config.graders)
    names = [e.id for e in entries] if len({e.id for e in entries}) == len(entries) else labels(entries)
    return [Model(name, registry.create(e, env)) for e, name in zip(entries, names, strict=True)]


async def close_adapters(models: Sequence[Model]) -> None:
    """End what the adapters keep between calls (an HTTP adapter's open connections)."""
    for m in models:
        close = getattr(m.adapter, "aclose", None)
        if close is not None:
            await close()
