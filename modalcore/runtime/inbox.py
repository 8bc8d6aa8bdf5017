"""A session runner's inbound queue: asyncio.Queue's few operations the runner uses, in a
fraction of its memory (an idle session's queue is a list and two counters; asyncio.Queue
allocates three deques and an Event up front, ~6 KiB per session: issue 17's idle figure).

One consumer (the runner's task); any number of producers (never blocking); `join` waits until
every item put has been marked done, as asyncio.Queue's does. `on_put`, when set, is called after
each item is put (the runner starts its task on demand: an idle session has none).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Inbox(Generic[T]):
    __slots__ = ("_items", "_waiter", "_unfinished", "_idle", "on_put")

    def __init__(self) -> None:
        self.on_put: Callable[[], None] | None = None
        self._items: list[T] = []
        self._waiter: asyncio.Future[None] | None = None
        self._unfinished = 0
        self._idle: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        self._unfinished += 1
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        if self.on_put is not None:
            self.on_put()

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> T:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.pop(0)

    async def get(self) -> T:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def task_done(self) -> None:
        if self._unfinished <= 0:
            raise ValueError("task_done() called too many times")
        self._unfinished -= 1
        if self._unfinished == 0 and self._idle is not None:
            if not self._idle.done():
                self._idle.set_result(None)
            self._idle = None

    async def join(self) -> None:
        if self._unfinished == 0:
            return
        if self._idle is None:
            self._idle = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._idle)
