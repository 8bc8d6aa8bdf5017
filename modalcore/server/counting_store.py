"""A session store with each call counted by operation name (the metrics' store_ops and
store_errors): what `serve` wraps its configured store in. Each of the store's concerns is
wrapped alike (`leases`, `notes`, `audit`, `analytics`), its calls counted under the names the
metrics have always used (`claim`, `take_note`, `audit_append`, `events_add`, …)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TypeVar

from ..ledger.chain import SignedHeads, StoredEntry
from ..store.analytics import Analytics
from ..store.audit_log import AuditLog
from ..store.base import NO_BLOBS, SessionStore, StoredEvent
from ..store.leases import Leases
from ..store.notes import Notes
from .metrics import Metrics

T = TypeVar("T")


class _Counter:
    """Counts one call by name, and its failure."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def __call__(self, name: str, call: Awaitable[T]) -> T:
        self.metrics.store_op(name)
        try:
            return await call
        except Exception:
            self.metrics.store_errors += 1
            raise


class _CountedLeases(Leases):
    """Which process owns a session, and the events routed to it."""

    def __init__(self, inner: Leases, count: _Counter) -> None:
        self.inner = inner
        self._count = count

    @property
    def worker_id(self) -> str:
        return self.inner.worker_id

    async def claim(self, session_id: str) -> None:
        await self._count("claim", self.inner.claim(session_id))

    async def owns(self, session_id: str) -> bool:
        return await self._count("owns", self.inner.owns(session_id))

    async def holder(self, session_id: str) -> str | None:
        return await self._count("holder", self.inner.holder(session_id))

    async def publish(self, worker_id: str, data: bytes) -> int:
        return await self._count("publish", self.inner.publish(worker_id, data))

    async def listen(self, handler: Callable[[bytes], Awaitable[None]]) -> None:
        await self.inner.listen(handler)


class _CountedNotes(Notes):
    """Marks and notes kept for a while."""

    def __init__(self, inner: Notes, count: _Counter) -> None:
        self.inner = inner
        self._count = count

    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
        await self._count("mark", self.inner.mark(key, now_ms, ttl_ms))

    async def marked(self, key: str, now_ms: int) -> bool:
        return await self._count("marked", self.inner.marked(key, now_ms))

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        await self._count("note", self.inner.note(kind, key, data, now_ms, ttl_ms, most))

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        return await self._count("noted", self.inner.noted(kind, key, now_ms))

    async def take(self, kind: str, key: str, now_ms: int) -> bytes | None:
        return await self._count("take_note", self.inner.take(kind, key, now_ms))


class _CountedAudit(AuditLog):
    """The audit chain and its signed heads."""

    def __init__(self, inner: AuditLog, count: _Counter) -> None:
        self.inner = inner
        self._count = count

    async def append(self, entry: StoredEntry) -> None:
        await self._count("audit_append", self.inner.append(entry))

    async def entries(self, session_id: str) -> list[StoredEntry]:
        return await self._count("audit_entries", self.inner.entries(session_id))

    async def sessions(self) -> list[str]:
        return await self._count("audit_sessions", self.inner.sessions())

    async def head(self, session_id: str) -> StoredEntry | None:
        return await self._count("audit_head", self.inner.head(session_id))

    async def append_heads(self, signed: SignedHeads) -> None:
        await self._count("heads_append", self.inner.append_heads(signed))

    async def all_heads(self) -> list[SignedHeads]:
        return await self._count("heads_all", self.inner.all_heads())


class _CountedAnalytics(Analytics):
    """The analytics events."""

    def __init__(self, inner: Analytics, count: _Counter) -> None:
        self.inner = inner
        self._count = count

    async def add(self, event: StoredEvent) -> None:
        await self._count("events_add", self.inner.add(event))

    def add_nowait(self, event: StoredEvent) -> bool:
        kept = self.inner.add_nowait(event)
        if kept:
            self._count.metrics.store_op("events_add")
        return kept

    async def counts(self) -> list[tuple[str, str, str, int]]:
        return await self._count("event_counts", self.inner.counts())

    async def prune(self, before_ms: int) -> int:
        return await self._count("events_prune", self.inner.prune(before_ms))


class CountingStore(SessionStore):
    """Another store, with each call counted by operation name."""

    def __init__(self, inner: SessionStore, metrics: Metrics) -> None:
        super().__init__(inner.ttl_ms)
        self.inner = inner
        self._metrics = metrics
        self._count = count = _Counter(metrics)
        self.leases = _CountedLeases(inner.leases, count)
        self.notes = _CountedNotes(inner.notes, count)
        self.audit = _CountedAudit(inner.audit, count)
        self.analytics = _CountedAnalytics(inner.analytics, count)
        inner.on_write_error = self._write_failed  # a held write (SQLite's) failed in the background

    def _write_failed(self) -> None:
        self._metrics.store_errors += 1

    # ----- the saved sessions and their blobs
    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        return await self._count("load", self.inner.load(session_id, now_ms))

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        await self._count("save", self.inner.save(session_id, data, now_ms, blobs))

    async def load_blobs(self, digests: Iterable[str], now_ms: int) -> dict[str, bytes]:
        return await self._count("load_blobs", self.inner.load_blobs(digests, now_ms))

    async def flush(self) -> None:
        await self.inner.flush()  # not a store operation of its own: it commits earlier saves

    def failing(self) -> str | None:
        return self.inner.failing()

    def held_unsaved(self) -> int:
        return self.inner.held_unsaved()

    async def delete(self, session_id: str) -> None:
        await self._count("delete", self.inner.delete(session_id))

    async def touch(self, session_id: str, now_ms: int) -> None:
        await self._count("touch", self.inner.touch(session_id, now_ms))

    async def expire(self, now_ms: int) -> int:
        return await self._count("expire", self.inner.expire(now_ms))

    async def count(self) -> int:
        return await self._count("count", self.inner.count())

    async def close(self) -> None:
        await self.inner.close()
