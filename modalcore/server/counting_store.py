"""A session store with each call counted by operation name (the metrics' store_ops and
store_errors): what `serve` wraps its configured store in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TypeVar

from ..ledger.chain import SignedHeads, StoredEntry
from ..store.base import NO_BLOBS, SessionStore, StoredEvent
from .metrics import Metrics

T = TypeVar("T")


class _Counted:
    """What the parts share: the store counted and the count."""

    inner: SessionStore
    _metrics: Metrics

    async def _call(self, name: str, call: Awaitable[T]) -> T:
        self._metrics.store_op(name)
        try:
            return await call
        except Exception:
            self._metrics.store_errors += 1
            raise


class _CountedRecords(_Counted):
    """The saved sessions and their blobs."""

    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        return await self._call("load", self.inner.load(session_id, now_ms))

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        await self._call("save", self.inner.save(session_id, data, now_ms, blobs))

    async def load_blobs(self, digests: Iterable[str], now_ms: int) -> dict[str, bytes]:
        return await self._call("load_blobs", self.inner.load_blobs(digests, now_ms))

    async def flush(self) -> None:
        await self.inner.flush()  # not a store operation of its own: it commits earlier saves

    def failing(self) -> str | None:
        return self.inner.failing()

    def held_unsaved(self) -> int:
        return self.inner.held_unsaved()

    async def delete(self, session_id: str) -> None:
        await self._call("delete", self.inner.delete(session_id))

    async def touch(self, session_id: str, now_ms: int) -> None:
        await self._call("touch", self.inner.touch(session_id, now_ms))

    async def expire(self, now_ms: int) -> int:
        return await self._call("expire", self.inner.expire(now_ms))

    async def count(self) -> int:
        return await self._call("count", self.inner.count())


class _CountedLeases(_Counted):
    """Which process owns a session, and the events routed to it."""

    async def claim(self, session_id: str) -> None:
        await self._call("claim", self.inner.claim(session_id))

    async def owns(self, session_id: str) -> bool:
        return await self._call("owns", self.inner.owns(session_id))

    async def holder(self, session_id: str) -> str | None:
        return await self._call("holder", self.inner.holder(session_id))

    async def publish(self, worker_id: str, data: bytes) -> int:
        return await self._call("publish", self.inner.publish(worker_id, data))

    async def listen(self, handler: Callable[[bytes], Awaitable[None]]) -> None:
        await self.inner.listen(handler)


class _CountedNotes(_Counted):
    """Marks and notes kept for a while."""

    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
        await self._call("mark", self.inner.mark(key, now_ms, ttl_ms))

    async def marked(self, key: str, now_ms: int) -> bool:
        return await self._call("marked", self.inner.marked(key, now_ms))

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        await self._call("note", self.inner.note(kind, key, data, now_ms, ttl_ms, most))

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        return await self._call("noted", self.inner.noted(kind, key, now_ms))

    async def take_note(self, kind: str, key: str, now_ms: int) -> bytes | None:
        return await self._call("take_note", self.inner.take_note(kind, key, now_ms))


class _CountedAudit(_Counted):
    """The audit chain and its signed heads."""

    async def audit_append(self, entry: StoredEntry) -> None:
        await self._call("audit_append", self.inner.audit_append(entry))

    async def audit_entries(self, session_id: str) -> list[StoredEntry]:
        return await self._call("audit_entries", self.inner.audit_entries(session_id))

    async def audit_sessions(self) -> list[str]:
        return await self._call("audit_sessions", self.inner.audit_sessions())

    async def audit_head(self, session_id: str) -> StoredEntry | None:
        return await self._call("audit_head", self.inner.audit_head(session_id))

    async def heads_append(self, signed: SignedHeads) -> None:
        await self._call("heads_append", self.inner.heads_append(signed))

    async def heads_all(self) -> list[SignedHeads]:
        return await self._call("heads_all", self.inner.heads_all())


class _CountedEvents(_Counted):
    """The analytics events."""

    async def events_add(self, event: StoredEvent) -> None:
        await self._call("events_add", self.inner.events_add(event))

    def events_add_nowait(self, event: StoredEvent) -> bool:
        kept = self.inner.events_add_nowait(event)
        if kept:
            self._metrics.store_op("events_add")
        return kept

    async def event_counts(self) -> list[tuple[str, str, str, int]]:
        return await self._call("event_counts", self.inner.event_counts())

    async def events_prune(self, before_ms: int) -> int:
        return await self._call("events_prune", self.inner.events_prune(before_ms))


class CountingStore(_CountedRecords, _CountedLeases, _CountedNotes, _CountedAudit, _CountedEvents, SessionStore):
    """Another store, with each call counted by operation name."""

    def __init__(self, inner: SessionStore, metrics: Metrics) -> None:
        super().__init__(inner.ttl_ms)
        self.inner = inner
        self._metrics = metrics
        inner.on_write_error = self._write_failed  # a held write (SQLite's) failed in the background

    @property
    def worker_id(self) -> str:  # type: ignore[override]
        return self.inner.worker_id

    def _write_failed(self) -> None:
        self._metrics.store_errors += 1

    async def close(self) -> None:
        await self.inner.close()
