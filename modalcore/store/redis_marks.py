"""Short-lived marks in Redis (issue 42): what one engine process marks (a one-press social
window it served) every process of every host sharing the Redis sees, until the key expires
(Redis's own clock: `PX`)."""

from __future__ import annotations

from redis.asyncio import Redis


class RedisMarks:
    """`SessionStore.mark`/`marked` for RedisStore (`{prefix}m:{key}`, one `SET PX` or `EXISTS`)."""

    _redis: Redis
    _prefix: str

    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
        await self._redis.set(f"{self._prefix}m:{key}", b"1", px=max(1, ttl_ms))

    async def marked(self, key: str, now_ms: int) -> bool:
        return bool(await self._redis.exists(f"{self._prefix}m:{key}"))
