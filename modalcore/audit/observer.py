"""The runtime observer that writes a session's audit records to the store, chained."""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field

from ..ports.observe import Step
from ..store.base import AuditConflict, SessionStore
from ..ledger.chain import GENESIS, make_entry
from .derive import Pending, Record, derive
from .signer import HeadSigner

log = logging.getLogger(__name__)

MAX_SESSIONS_HELD = 10_000  # chain heads kept in memory; others are read back from the store


@dataclass
class _Head:
    seq: int
    hash: str
    pending: dict[str, Pending] = field(default_factory=dict)


class AuditObserver:
    def __init__(self, store: SessionStore, signer: HeadSigner | None = None) -> None:
        self.store = store
        self.signer = signer  # signs the heads at a bounded rate (None: the log is not anchored)
        self._heads: OrderedDict[str, _Head] = OrderedDict()

    async def _head(self, session_id: str) -> _Head:
        head = self._heads.get(session_id)
        if head is None:
            last = await self.store.audit.head(session_id)
            head = _Head(last.seq, last.hash) if last else _Head(0, GENESIS)
            self._heads[session_id] = head
            while len(self._heads) > MAX_SESSIONS_HELD:
                self._heads.popitem(last=False)
        else:
            self._heads.move_to_end(session_id)
        return head

    async def observe(self, step: Step) -> None:
        head = self._heads.get(step.session_id)
        records, pending = derive(step, head.pending if head else {})
        if not records and head is None:
            if pending:
                (await self._head(step.session_id)).pending = pending
            return
        head = await self._head(step.session_id)
        head.pending = pending
        for record in records:
            await self._append(step, head, record)
        if records and self.signer is not None:
            self.signer.advanced(step.session_id, head.seq, head.hash)

    async def _append(self, step: Step, head: _Head, record: Record) -> None:
        entry = make_entry(step.session_id, head.seq + 1, step.at, record.kind, record.data,
                           head.hash)
        try:
            await self.store.audit.append(entry)
        except AuditConflict:
            # the head held here is stale: another engine process served the session since
            # (a takeover) and wrote after it. The chain continues from the stored head.
            last = await self.store.audit.head(step.session_id)
            head.seq, head.hash = (last.seq, last.hash) if last else (0, GENESIS)
            entry = make_entry(step.session_id, head.seq + 1, step.at, record.kind, record.data,
                               head.hash)
            await self.store.audit.append(entry)
        head.seq, head.hash = entry.seq, entry.hash
