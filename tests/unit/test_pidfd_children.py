"""A run's children are waited for on the event loop (pidfds), not by a thread each."""

from __future__ import annotations

import asyncio
import sys
import threading

from skill_be.proc import run_process
from skill_be.wiring.assembly import interruptible, pidfd_children


async def _threads_during_children(n: int) -> int:
    """The most threads alive while `n` children run at once."""
    most = threading.active_count()

    async def one() -> None:
        nonlocal most
        task = asyncio.ensure_future(run_process(["sh", "-c", "cat >/dev/null; sleep 0.2; echo ok"], stdin=b"x"))
        await asyncio.sleep(0.1)
        most = max(most, threading.active_count())
        assert (await task).stdout == b"ok\n"

    await asyncio.gather(*(one() for _ in range(n)))
    return most


def test_children_start_no_thread_each_inside_a_command() -> None:
    before = threading.active_count()

    async def inside() -> int:
        with pidfd_children(asyncio.get_running_loop()):
            return await _threads_during_children(4)

    assert asyncio.run(inside()) == before
    # control: asyncio's own way, outside; on Python 3.11 that is a thread per child
    outside = asyncio.run(_threads_during_children(4))
    assert (outside >= before + 4) == (sys.version_info < (3, 12))


def test_the_watcher_that_was_there_comes_back() -> None:
    def watcher() -> object:
        return asyncio.get_event_loop_policy().get_child_watcher() if sys.version_info < (3, 12) else None

    first = watcher()

    async def work() -> tuple[str, bool]:
        seen = type(watcher()).__name__
        done = await run_process(["sh", "-c", "exit 3"])
        return seen, done.returncode == 3

    seen, exited = asyncio.run(interruptible(work))
    assert exited
    assert seen == ("PidfdChildWatcher" if sys.version_info < (3, 12) else "NoneType")
    assert watcher() is first  # control of the line above: outside a command it is the one before
    assert type(first).__name__ == ("ThreadedChildWatcher" if sys.version_info < (3, 12) else "NoneType")
