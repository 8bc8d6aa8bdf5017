"""The audit log a session store keeps (`SessionStore.audit`): each session's entries of the hash
chain (`ledger/chain.py`), append-only, and the chain heads the engine signed (`audit/heads.py`),
append-only too and apart from the entries, so a log cut short or written again no longer
matches what the engine signed. Both outlive the session's TTL. `MemoryAuditLog` is the memory
store's; SqliteAuditLog and RedisAuditLog (sqlite_audit.py, redis_audit.py) the others."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..ledger.chain import SignedHeads, StoredEntry
from .base import AuditConflict


class AuditLog(ABC):
    @abstractmethod
    async def append(self, entry: StoredEntry) -> None:
        """Add the entry; an entry already at that (session, seq) is an error (AuditConflict),
        never replaced."""

    @abstractmethod
    async def entries(self, session_id: str) -> list[StoredEntry]:
        """The session's entries in seq order."""

    @abstractmethod
    async def sessions(self) -> list[str]:
        """Every session with audit entries."""

    async def head(self, session_id: str) -> StoredEntry | None:
        """The session's newest entry (the chain continues from it)."""
        entries = await self.entries(session_id)
        return entries[-1] if entries else None

    @abstractmethod
    async def append_heads(self, signed: SignedHeads) -> None:
        """Add one signed set; a set already at that (worker, n) is an error (AuditConflict),
        never replaced."""

    @abstractmethod
    async def all_heads(self) -> list[SignedHeads]:
        """Every signed set, by worker and then n."""


class MemoryAuditLog(AuditLog):
    def __init__(self) -> None:
        self._entries: dict[str, list[StoredEntry]] = {}
        self._heads: dict[tuple[str, int], SignedHeads] = {}

    async def append(self, entry: StoredEntry) -> None:
        entries = self._entries.setdefault(entry.session_id, [])
        if entries and entries[-1].seq >= entry.seq:
            raise AuditConflict(f"audit entry {entry.session_id}/{entry.seq} exists")
        entries.append(entry)

    async def entries(self, session_id: str) -> list[StoredEntry]:
        return list(self._entries.get(session_id, ()))

    async def sessions(self) -> list[str]:
        return sorted(self._entries)

    async def head(self, session_id: str) -> StoredEntry | None:
        entries = self._entries.get(session_id)
        return entries[-1] if entries else None

    async def append_heads(self, signed: SignedHeads) -> None:
        if (signed.worker, signed.n) in self._heads:
            raise AuditConflict(f"signed heads {signed.worker}/{signed.n} exist")
        self._heads[(signed.worker, signed.n)] = signed

    async def all_heads(self) -> list[SignedHeads]:
        return [self._heads[key] for key in sorted(self._heads)]
