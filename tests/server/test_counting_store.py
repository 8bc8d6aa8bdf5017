"""The counted store (`serve` wraps its store in it for /metrics): every concern of the store
(`leases`, `notes`, `audit`, `analytics`) is counted like the saved sessions, each call under the
operation name /metrics has always shown, and a failing call counts as a store error too."""

from __future__ import annotations

import pytest

from modalcore.ledger.chain import SignedHeads, StoredEntry
from modalcore.server.counting_store import CountingStore
from modalcore.server.metrics import Metrics
from modalcore.store.base import AuditConflict, StoredEvent
from modalcore.store.memory import MemoryStore


async def test_rule_each_concern_of_the_store_is_counted_under_its_operation_name() -> None:
    metrics = Metrics()
    store = CountingStore(MemoryStore(), metrics)
    await store.save("s", b"x", 0)
    await store.leases.claim("s")
    assert await store.leases.owns("s") and store.leases.worker_id == "local"
    await store.notes.note("k", "a", b"n", 0, 100, 3)
    assert await store.notes.take("k", "a", 1) == b"n"
    await store.notes.mark("m", 0, 100)
    assert await store.notes.marked("m", 1)
    await store.audit.append(StoredEntry("s", 1, b"e", "h"))
    assert await store.audit.head("s") == StoredEntry("s", 1, b"e", "h")
    await store.audit.append_heads(SignedHeads("w", 1, b"{}", "0x01"))
    assert [h.n for h in await store.audit.all_heads()] == [1]
    assert store.analytics.add_nowait(StoredEvent("e1", "p", "s", "MODAL_OPEN", 0, b"{}"))
    assert await store.analytics.counts() == [("p", "1970-01-01", "MODAL_OPEN", 1)]
    assert metrics.store_ops == {
        "save": 1, "claim": 1, "owns": 1, "note": 1, "take_note": 1, "mark": 1, "marked": 1,
        "audit_append": 1, "audit_head": 1, "heads_append": 1, "heads_all": 1, "events_add": 1,
        "event_counts": 1}
    assert metrics.store_errors == 0
    with pytest.raises(AuditConflict):
        await store.audit.append(StoredEntry("s", 1, b"again", "h2"))
    assert metrics.store_ops["audit_append"] == 2 and metrics.store_errors == 1
