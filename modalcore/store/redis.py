"""Sessions in Redis (redis.asyncio), so several engine processes can share them.

Keys (all under `prefix`, default `modalcore:`):
- `s:{id}`   the session's saved bytes;
- `touched`  a sorted set, session id -> when it was last used (epoch ms of the caller's clock):
             the TTL is decided on it (on read and by `expire`), as the SQLite store does, so a
             test's fake clock means the same thing here;
- `a:{id}`   the session's audit log, a hash seq -> msgpack [body, hash], written with HSETNX
             (an existing (session, seq) is a conflict, never replaced);
- `ah:{worker}` the chain heads that engine process signed (`audit/heads.py`), a hash n -> msgpack
             [body, signature], written with HSETNX like the audit log;
- `l:{id}`   the session's lease: the id of the engine process that owns it. A save is refused
             (and logged) unless this process holds the lease or nobody does; `claim` (a rejoin
             landing here) takes it over unconditionally, so a crashed owner never blocks it;
- `w:{owner}` (a pub/sub channel) events for sessions that process owns, published by another
             process that received them (the hub's `route`);
- `b:{digest}` a shared blob (the directory's lists, `engine/shared.py`), written once (SET NX),
             and `blobs` a sorted set, digest -> when it was last written (caller's clock): `expire`
             drops a blob `2 × ttl_ms` after, as the base class says;
- `m:{key}`  a short-lived mark; `n:{kind}:{key}` a note taken once and
             `nz:{kind}` the kind's notes by when noted (redis_notes.py, issue 42);
- `ev:{id}`  an analytics event id seen (SET NX, kept for `EVENT_ID_TTL_S`), and `evc` the counts
             by "project|day|event".

Cost on the hot path: a save is one request, EVALSHA of a script that checks the lease, ZADDs
and SETs atomically (3 commands inside Redis; a save that brings blobs this process has not
written lately adds a SET NX and a ZADD for each, in the same script); an audit entry is 1
(HSETNX). Analytics events are held for at most `EVENTS_BEHIND_MS` and sent together: one
EVALSHA per batch (SET NX of each id, HINCRBY of its count when new); a kill -9 loses at most
those, as with the SQLite store's write-behind. The lease has no
TTL of its own: it goes with the session (delete, expire). `commands` counts the commands this store sent.

The store's methods are the sessions and their blobs; its concerns are objects of their own
sharing one RedisLink (redis_link.py): `leases` (redis_leases.py), `notes` (redis_notes.py),
`audit` (redis_audit.py) and `analytics` (redis_events.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

import msgpack
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from .base import DEFAULT_TTL_MS, NO_BLOBS, SessionStore
from .redis_audit import RedisAuditLog
from .redis_events import RedisAnalytics
from .redis_leases import RedisLeases
from .redis_link import RedisLink
from .redis_notes import RedisNotes
from .redis_scripts import EXPIRE_BLOBS, SAVE

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 32  # per engine process
POOL_WAIT_S = 10.0  # a call waits this long for a free connection before it fails
SOCKET_TIMEOUT_S = 5.0  # a command unanswered this long fails (a save is then retried, issue 27)
CONNECT_TIMEOUT_S = 2.0
HEALTH_CHECK_S = 5.0  # a pooled connection idle longer is checked (PING) before it is used
REPLICA_WAIT_MS = 1000  # a save waits this long for its replicas before it is retried


class ReplicasBehind(Exception):
    """A save reached the primary but not the replicas it must reach (`[store] replicas`)."""

    def __init__(self, acked: int, wanted: int) -> None:
        super().__init__(f"the save reached {acked} of {wanted} replicas")


class RedisStore(SessionStore):
    leases: RedisLeases
    analytics: RedisAnalytics

    def __init__(self, client: Redis, ttl_ms: int = DEFAULT_TTL_MS,
                 prefix: str = "modalcore:", *, replicas: int = 0) -> None:
        super().__init__(ttl_ms)
        self._link = link = RedisLink(client, prefix)
        self.prefix = prefix  # of every key (redis.py's docstring lists them)
        self._redis = client
        self._replicas = replicas  # a save lands once this many replicas have it (WAIT)
        self._touched = f"{prefix}touched"
        self._blobs_touched = f"{prefix}blobs"
        self._save_script = client.register_script(SAVE)
        self._expire_blobs_script = client.register_script(EXPIRE_BLOBS)
        self.leases = RedisLeases(link)
        self.notes = RedisNotes(link)
        self.audit = RedisAuditLog(link)
        self.analytics = RedisAnalytics(link)

    @property
    def commands(self) -> int:
        """The commands this store sent, its concerns' included (figures, tests)."""
        return self._link.commands

    @classmethod
    def from_url(cls, url: str, ttl_ms: int = DEFAULT_TTL_MS,
                 prefix: str = "modalcore:", *, replicas: int = 0) -> RedisStore:
        # Sessions wait their turn for one of a bounded set of connections: redis-py's default
        # pool refuses a call outright past its limit (every session saving at once under load).
        # A connection made before Redis restarted is dead: a command on it fails once with
        # "Connection closed by server" (issue 27: the shutdown save did, Redis back). It is
        # retried once on a new connection; a connection idle past HEALTH_CHECK_S is PINGed
        # (and made anew) before use. Only connection errors are retried: the command never
        # reached the new server (a time-out is not retried: it may have run).
        pool = BlockingConnectionPool.from_url(
            url, max_connections=MAX_CONNECTIONS, timeout=POOL_WAIT_S,
            retry=Retry(NoBackoff(), 1, (RedisConnectionError,)),
            health_check_interval=HEALTH_CHECK_S, socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=CONNECT_TIMEOUT_S)
        return cls(Redis(connection_pool=pool), ttl_ms, prefix, replicas=replicas)

    def _key(self, session_id: str) -> str:
        return self._link.key("s", session_id)

    def _blob_key(self, digest: str) -> str:
        return self._link.key("b", digest)

    # ----- sessions
    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.get(self._key(session_id))
            pipe.zscore(self._touched, session_id)
            data, touched = await pipe.execute()
        self._link.commands += 2
        if data is None:
            return None
        if touched is None or self._expired(int(touched), now_ms):
            await self.delete(session_id)
            return None
        return bytes(data)

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        keys = [self.leases.key(session_id), self._touched, self._key(session_id), self._blobs_touched]
        args: list[str | int | bytes] = [self.leases.owner, session_id, now_ms, data]
        fresh = self._ledger.to_write(blobs, now_ms) if blobs else NO_BLOBS
        for digest, blob in fresh.items():
            keys.append(self._blob_key(digest))
            args += (digest, blob)
        try:
            saved = await (self._save_replicated(keys, args) if self._replicas
                           else self._save_script(keys=keys, args=args))
        except BaseException:
            # Redis may have restarted without them: the retry of this save writes them again
            self._ledger.forget(blobs)
            raise
        self._link.commands += 1
        # marked once Redis has them: a save in flight meanwhile sends them too (SET NX: once)
        if fresh:
            self._ledger.wrote(fresh, now_ms)
            self.bytes_written += sum(map(len, fresh.values()))
        if not saved:
            log.info("session %s: not saved, another engine process owns it now", session_id)
            return
        self.bytes_written += len(data)

    async def _save_replicated(self, keys: list[str], args: list[str | int | bytes]) -> object:
        """The save, then WAIT on the same connection (one pipelined request): it counts as
        landed only once `replicas` replicas have it, so a primary lost right after cannot take
        it along (redis_sentinel.py); fewer raises, and the caller keeps it and retries."""
        async with self._redis.pipeline(transaction=False) as pipe:
            await self._save_script(keys=keys, args=args, client=pipe)
            pipe.wait(self._replicas, REPLICA_WAIT_MS)
            saved, acked = await pipe.execute()
        self._link.commands += 1
        if int(acked) < self._replicas:
            raise ReplicasBehind(int(acked), self._replicas)
        return saved

    async def load_blobs(self, digests: Iterable[str], now_ms: int) -> dict[str, bytes]:
        wanted = list(digests)
        if not wanted:
            return {}
        values: list[Any] = await self._redis.mget([self._blob_key(d) for d in wanted])
        self._link.commands += 1
        return {d: bytes(v) for d, v in zip(wanted, values, strict=True) if v is not None}

    async def delete(self, session_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._key(session_id), self.leases.key(session_id))
            pipe.zrem(self._touched, session_id)
            await pipe.execute()
        self._link.commands += 2

    async def touch(self, session_id: str, now_ms: int) -> None:
        await self._redis.zadd(self._touched, {session_id: now_ms}, xx=True)
        self._link.commands += 1

    async def expire(self, now_ms: int) -> int:
        cutoff = now_ms - self.ttl_ms
        # strictly older than the cutoff: `_expired` is `now - touched > ttl`
        gone: list[Any] = await self._redis.zrangebyscore(self._touched, "-inf", f"({cutoff}")
        self._link.commands += 1
        await self._expire_blobs(now_ms)
        if not gone:
            return 0
        ids = [g.decode() if isinstance(g, bytes) else str(g) for g in gone]
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(*(self._key(i) for i in ids), *(self.leases.key(i) for i in ids))
            pipe.zrem(self._touched, *ids)
            await pipe.execute()
        self._link.commands += 2
        return len(ids)

    async def _expire_blobs(self, now_ms: int) -> None:
        await self._expire_blobs_script(keys=[self._blobs_touched],
                                        args=[now_ms - self.blob_ttl_ms, self._blob_key("")])
        self._link.commands += 1

    async def count(self) -> int:
        self._link.commands += 1
        return int(await self._redis.zcard(self._touched))

    async def close(self) -> None:
        try:
            await self.analytics.sent()
        except Exception:
            log.exception("redis store: analytics events not sent at close")
        await self._redis.aclose()
