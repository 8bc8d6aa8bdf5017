"""Leases in Redis (`RedisStore.leases`, store/leases.py): `{prefix}l:{id}` holds the id of the
engine process that owns the session (the save script checks it, redis_scripts.py), and
`{prefix}w:{owner}` is the pub/sub channel of events for sessions that process owns."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable

from .leases import Leases
from .redis_link import RedisLink

log = logging.getLogger("modalcore.store.redis")  # the store's own log, as before the split


class RedisLeases(Leases):
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self.owner = secrets.token_hex(8)  # this process, as lease holder
        self.listening = asyncio.Event()  # set while this process is subscribed to its channel

    @property
    def worker_id(self) -> str:
        return self.owner

    def key(self, session_id: str) -> str:
        return self._link.key("l", session_id)

    async def claim(self, session_id: str) -> None:
        await self._link.redis.set(self.key(session_id), self.owner)
        self._link.commands += 1

    async def owns(self, session_id: str) -> bool:
        holder = await self._link.redis.get(self.key(session_id))
        self._link.commands += 1
        return holder is None or holder == self.owner.encode()

    async def holder(self, session_id: str) -> str | None:
        held = await self._link.redis.get(self.key(session_id))
        self._link.commands += 1
        if held is None:
            return None
        return held.decode() if isinstance(held, bytes) else str(held)

    async def publish(self, worker_id: str, data: bytes) -> int:
        reached = await self._link.redis.publish(self._link.key("w", worker_id), data)
        self._link.commands += 1
        return int(reached)

    async def listen(self, handler: Callable[[bytes], Awaitable[None]]) -> None:
        pubsub = self._link.redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self._link.key("w", self.owner))
            self.listening.set()
            async for message in pubsub.listen():
                data = message.get("data")
                if message.get("type") != "message" or not isinstance(data, bytes):
                    continue
                try:
                    await handler(data)
                except Exception:
                    log.exception("a routed event failed")
        finally:
            self.listening.clear()
            await pubsub.aclose()
