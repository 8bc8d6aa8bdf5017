"""Sessions in a dict: nothing survives the process (the default for tests and `serve`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .analytics import MemoryAnalytics
from .audit_log import MemoryAuditLog
from .base import DEFAULT_TTL_MS, NO_BLOBS, SessionStore


class MemoryStore(SessionStore):
    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        super().__init__(ttl_ms)
        self._rows: dict[str, tuple[bytes, int]] = {}
        self._blobs: dict[str, tuple[bytes, int]] = {}  # digest -> (bytes, last written)
        self.audit = MemoryAuditLog()
        self.analytics = MemoryAnalytics()

    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        row = self._rows.get(session_id)
        if row is None:
            return None
        if self._expired(row[1], now_ms):
            del self._rows[session_id]
            return None
        return row[0]

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        if blobs:
            fresh = self._ledger.to_write(blobs, now_ms)
            for digest, blob in fresh.items():
                self._blobs[digest] = (bytes(blob), now_ms)
                self.bytes_written += len(blob)
            if fresh:
                self._ledger.wrote(fresh, now_ms)
        self._rows[session_id] = (bytes(data), now_ms)
        self.bytes_written += len(data)

    async def load_blobs(self, digests: Iterable[str], now_ms: int) -> dict[str, bytes]:
        return {d: self._blobs[d][0] for d in digests if d in self._blobs}

    async def delete(self, session_id: str) -> None:
        self._rows.pop(session_id, None)

    async def touch(self, session_id: str, now_ms: int) -> None:
        row = self._rows.get(session_id)
        if row is not None:
            self._rows[session_id] = (row[0], now_ms)

    async def expire(self, now_ms: int) -> int:
        gone = [sid for sid, (_, touched) in self._rows.items() if self._expired(touched, now_ms)]
        for sid in gone:
            del self._rows[sid]
        old = [d for d, (_, written) in self._blobs.items() if now_ms - written > self.blob_ttl_ms]
        for digest in old:
            del self._blobs[digest]
        return len(gone)

    async def count(self) -> int:
        return len(self._rows)
