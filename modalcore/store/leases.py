"""Which engine process owns a session, and the channel to it (`SessionStore.leases`).

Several engine processes sharing a store own each session once: the process a visitor came back
to takes it over (`claim`), and one that finds it no longer `owns` a session drops its copy. An
event for a session that lands on another process is sent to the owner's channel (`publish`,
heard by its `listen`). `Leases` itself is the store only one process uses: it owns every
session and has nobody else to tell. RedisLeases (redis_leases.py) is the shared one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

LOCAL = "local"  # the worker id of a process that shares its store with nobody


class Leases:
    @property
    def worker_id(self) -> str:
        """This process, as an owner of sessions."""
        return LOCAL

    async def claim(self, session_id: str) -> None:
        """This process takes the session over (a rejoin landed here): from now on another
        process's saves of it are refused. A store only one process uses has nothing to do."""
        return None

    async def owns(self, session_id: str) -> bool:
        """Whether this process still holds the session (False: another one took it over, so a
        copy live here is stale)."""
        return True

    async def holder(self, session_id: str) -> str | None:
        """The process that owns the session (None: nobody does). A store only one process
        uses: this one."""
        return None

    async def publish(self, worker_id: str, data: bytes) -> int:
        """Send `data` to that process's listener; how many listeners got it (0: the process is
        gone). A store only one process uses has nobody else to tell."""
        return 0

    async def listen(self, handler: Callable[[bytes], Awaitable[None]]) -> None:
        """Call `handler` with what other processes publish to this one, until cancelled. A
        store only one process uses returns at once."""
        return None
