"""Sessions in a dict: nothing survives the process (the default for tests and `serve`)."""

from __future__ import annotations

from ..ledger.chain import SignedHeads, StoredEntry
from collections import Counter
from collections.abc import Iterable, Mapping

from .base import DEFAULT_TTL_MS, NO_BLOBS, AuditConflict, SessionStore, StoredEvent, utc_day

MAX_EVENTS_HELD = 100_000  # event ids remembered (for dropping repeats); counts are kept whole


class MemoryStore(SessionStore):
    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        super().__init__(ttl_ms)
        self._rows: dict[str, tuple[bytes, int]] = {}
        self._blobs: dict[str, tuple[bytes, int]] = {}  # digest -> (bytes, last written)
        self._audit: dict[str, list[StoredEntry]] = {}
        self._heads: dict[tuple[str, int], SignedHeads] = {}
        self._event_ids: dict[str, None] = {}
        self._counts: Counter[tuple[str, str, str]] = Counter()

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

    async def audit_append(self, entry: StoredEntry) -> None:
        entries = self._audit.setdefault(entry.session_id, [])
        if entries and entries[-1].seq >= entry.seq:
            raise AuditConflict(f"audit entry {entry.session_id}/{entry.seq} exists")
        entries.append(entry)

    async def audit_entries(self, session_id: str) -> list[StoredEntry]:
        return list(self._audit.get(session_id, ()))

    async def audit_sessions(self) -> list[str]:
        return sorted(self._audit)

    async def audit_head(self, session_id: str) -> StoredEntry | None:
        entries = self._audit.get(session_id)
        return entries[-1] if entries else None

    async def heads_append(self, signed: SignedHeads) -> None:
        if (signed.worker, signed.n) in self._heads:
            raise AuditConflict(f"signed heads {signed.worker}/{signed.n} exist")
        self._heads[(signed.worker, signed.n)] = signed

    async def heads_all(self) -> list[SignedHeads]:
        return [self._heads[key] for key in sorted(self._heads)]

    async def events_add(self, event: StoredEvent) -> None:
        self.events_add_nowait(event)

    def events_add_nowait(self, event: StoredEvent) -> bool:
        if event.event_id in self._event_ids:
            return True
        self._event_ids[event.event_id] = None
        if len(self._event_ids) > MAX_EVENTS_HELD:
            del self._event_ids[next(iter(self._event_ids))]
        self._counts[(event.project_id, event.day, event.event)] += 1
        return True

    async def event_counts(self) -> list[tuple[str, str, str, int]]:
        return sorted((*key, count) for key, count in self._counts.items())

    async def events_prune(self, before_ms: int) -> int:
        cutoff = utc_day(before_ms)
        old = [key for key in self._counts if key[1] < cutoff]
        return sum(self._counts.pop(key) for key in old)
