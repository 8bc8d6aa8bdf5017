"""Sessions in Redis (redis.asyncio), so several engine processes can share them.

Keys (all under `prefix`, default `modalcore:`):
- `s:{id}`   the session's saved bytes;
- `touched`  a sorted set, session id -> when it was last used (epoch ms of the caller's clock):
             the TTL is decided on it (on read and by `expire`), as the SQLite store does, so a
             test's fake clock means the same thing here;
- `a:{id}`   the session's audit log, a hash seq -> msgpack [body, hash], written with HSETNX
             (an existing (session, seq) is a conflict, never replaced);
- `ev:{id}`  an analytics event id seen (SET NX, kept for `EVENT_ID_TTL_S`), and `evc` the counts
             by "project|day|event".

Cost on the hot path: a save is one round trip of 2 commands (ZADD + SET, pipelined); an audit
entry is 1 (HSETNX). `commands` counts the commands this store sent.
"""

from __future__ import annotations

from typing import Any

import msgpack
from redis.asyncio import Redis

from ..audit.chain import StoredEntry
from .base import DEFAULT_TTL_MS, AuditConflict, SessionStore, StoredEvent

EVENT_ID_TTL_S = 7 * 24 * 3600
_SEP = "|"


class RedisStore(SessionStore):
    def __init__(self, client: Redis, ttl_ms: int = DEFAULT_TTL_MS,
                 prefix: str = "modalcore:") -> None:
        super().__init__(ttl_ms)
        self._redis = client
        self._prefix = prefix
        self._touched = f"{prefix}touched"
        self.commands = 0

    @classmethod
    def from_url(cls, url: str, ttl_ms: int = DEFAULT_TTL_MS,
                 prefix: str = "modalcore:") -> RedisStore:
        return cls(Redis.from_url(url), ttl_ms, prefix)

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}s:{session_id}"

    def _audit_key(self, session_id: str) -> str:
        return f"{self._prefix}a:{session_id}"

    # ----- sessions
    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.get(self._key(session_id))
            pipe.zscore(self._touched, session_id)
            data, touched = await pipe.execute()
        self.commands += 2
        if data is None:
            return None
        if touched is None or self._expired(int(touched), now_ms):
            await self.delete(session_id)
            return None
        return bytes(data)

    async def save(self, session_id: str, data: bytes, now_ms: int) -> None:
        # One round trip, no MULTI/EXEC (2 commands, not 4). Touched first: a writer dying
        # between the two leaves the previous bytes (or none), never bytes without a time.
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self._touched, {session_id: now_ms})
            pipe.set(self._key(session_id), data)
            await pipe.execute()
        self.commands += 2

    async def delete(self, session_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._key(session_id))
            pipe.zrem(self._touched, session_id)
            await pipe.execute()
        self.commands += 2

    async def touch(self, session_id: str, now_ms: int) -> None:
        await self._redis.zadd(self._touched, {session_id: now_ms}, xx=True)
        self.commands += 1

    async def expire(self, now_ms: int) -> int:
        cutoff = now_ms - self.ttl_ms
        # strictly older than the cutoff: `_expired` is `now - touched > ttl`
        gone: list[Any] = await self._redis.zrangebyscore(self._touched, "-inf", f"({cutoff}")
        self.commands += 1
        if not gone:
            return 0
        ids = [g.decode() if isinstance(g, bytes) else str(g) for g in gone]
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(*(self._key(i) for i in ids))
            pipe.zrem(self._touched, *ids)
            await pipe.execute()
        self.commands += 2
        return len(ids)

    async def count(self) -> int:
        self.commands += 1
        return int(await self._redis.zcard(self._touched))

    # ----- the audit log
    async def audit_append(self, entry: StoredEntry) -> None:
        packed = msgpack.packb([entry.body, entry.hash])
        added = await self._redis.hsetnx(self._audit_key(entry.session_id), str(entry.seq), packed)
        self.commands += 1
        if not added:
            raise AuditConflict(f"audit entry {entry.session_id}/{entry.seq} exists")

    async def audit_entries(self, session_id: str) -> list[StoredEntry]:
        rows: dict[Any, Any] = await self._redis.hgetall(self._audit_key(session_id))
        self.commands += 1
        entries = []
        for seq, packed in rows.items():
            body, digest = msgpack.unpackb(packed)
            entries.append(StoredEntry(session_id, int(seq), bytes(body), str(digest)))
        return sorted(entries, key=lambda e: e.seq)

    async def audit_sessions(self) -> list[str]:
        pattern = self._audit_key("*")
        skip = len(self._audit_key(""))
        found: set[str] = set()
        async for key in self._redis.scan_iter(match=pattern, count=1000):
            self.commands += 1
            text = key.decode() if isinstance(key, bytes) else str(key)
            found.add(text[skip:])
        return sorted(found)

    # ----- analytics events
    async def events_add(self, event: StoredEvent) -> None:
        fresh = await self._redis.set(f"{self._prefix}ev:{event.event_id}", b"1", nx=True,
                                      ex=EVENT_ID_TTL_S)
        self.commands += 1
        if fresh:
            field = _SEP.join((event.project_id, event.day, event.event))
            await self._redis.hincrby(f"{self._prefix}evc", field, 1)
            self.commands += 1

    async def event_counts(self) -> list[tuple[str, str, str, int]]:
        rows: dict[Any, Any] = await self._redis.hgetall(f"{self._prefix}evc")
        self.commands += 1
        counts = []
        for field, count in rows.items():
            project, day, name = field.decode().split(_SEP, 2)
            counts.append((project, day, name, int(count)))
        return sorted(counts)

    async def close(self) -> None:
        await self._redis.aclose()
