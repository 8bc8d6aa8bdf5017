"""The audit log in Redis (`RedisStore.audit`, store/audit_log.py): `{prefix}a:{id}` is the
session's log, a hash seq -> msgpack [body, hash]; `{prefix}ah:{worker}` the chain heads that
engine process signed, a hash n -> msgpack [body, signature]. Both written with HSETNX: an
existing (session, seq) or (worker, n) is a conflict, never replaced."""

from __future__ import annotations

from typing import Any

import msgpack

from ..ledger.chain import SignedHeads, StoredEntry
from .audit_log import AuditLog
from .base import AuditConflict
from .redis_link import RedisLink
from .redis_scripts import AUDIT_HEAD


class RedisAuditLog(AuditLog):
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._head_script = link.redis.register_script(AUDIT_HEAD)

    async def append(self, entry: StoredEntry) -> None:
        packed = msgpack.packb([entry.body, entry.hash])
        added = await self._link.redis.hsetnx(self._link.key("a", entry.session_id), str(entry.seq), packed)
        self._link.commands += 1
        if not added:
            raise AuditConflict(f"audit entry {entry.session_id}/{entry.seq} exists")

    async def entries(self, session_id: str) -> list[StoredEntry]:
        rows: dict[Any, Any] = await self._link.redis.hgetall(self._link.key("a", session_id))
        self._link.commands += 1
        entries = []
        for seq, packed in rows.items():
            body, digest = msgpack.unpackb(packed)
            entries.append(StoredEntry(session_id, int(seq), bytes(body), str(digest)))
        return sorted(entries, key=lambda e: e.seq)

    async def sessions(self) -> list[str]:
        skip = len(self._link.key("a", ""))
        found: set[str] = set()
        async for key in self._link.redis.scan_iter(match=self._link.key("a", "*"), count=1000):
            self._link.commands += 1
            text = key.decode() if isinstance(key, bytes) else str(key)
            found.add(text[skip:])
        return sorted(found)

    async def head(self, session_id: str) -> StoredEntry | None:
        found: Any = await self._head_script(keys=[self._link.key("a", session_id)])
        self._link.commands += 1
        if not found or found[1] is None:
            return None
        body, digest = msgpack.unpackb(found[1])
        return StoredEntry(session_id, int(found[0]), bytes(body), str(digest))

    async def append_heads(self, signed: SignedHeads) -> None:
        packed = msgpack.packb([signed.body, signed.signature])
        added = await self._link.redis.hsetnx(self._link.key("ah", signed.worker), str(signed.n), packed)
        self._link.commands += 1
        if not added:
            raise AuditConflict(f"signed heads {signed.worker}/{signed.n} exist")

    async def all_heads(self) -> list[SignedHeads]:
        skip = len(self._link.key("ah", ""))
        found: list[SignedHeads] = []
        async for key in self._link.redis.scan_iter(match=self._link.key("ah", "*"), count=1000):
            self._link.commands += 1
            text = key.decode() if isinstance(key, bytes) else str(key)
            rows: dict[Any, Any] = await self._link.redis.hgetall(key)
            self._link.commands += 1
            for n, packed in rows.items():
                body, signature = msgpack.unpackb(packed)
                found.append(SignedHeads(text[skip:], int(n), bytes(body), str(signature)))
        return sorted(found, key=lambda h: (h.worker, h.n))
