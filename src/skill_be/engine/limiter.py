"""One limit on every model call in flight, handing free slots out by priority."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class PriorityLimiter:
    """Like a semaphore, but a waiter with a lower priority value goes first (FIFO among equals).
    Gradings go before new generations, so an output is judged as soon as it exists and skills
    finish in order instead of all at the end."""

    def __init__(self, limit: int) -> None:
        self._free = limit
        self._waiters: list[tuple[tuple[int, ...], int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self.in_flight = 0
        self.peak = 0

    @asynccontextmanager
    async def slot(self, priority: tuple[int, ...]) -> AsyncIterator[None]:
        await self._acquire(priority)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            yield
        finally:
            self.in_flight -= 1
            self._release()

    async def _acquire(self, priority: tuple[int, ...]) -> None:
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (priority, next(self._seq), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._release()  # the slot was handed to us as we were cancelled: pass it on
            raise

    def _release(self) -> None:
        while self._waiters:
            _, _, fut = heapq.heappop(self._waiters)
            if not fut.done():
                fut.set_result(None)
                return
        self._free += 1
