"""Retention of the analytics events the engine keeps itself: `[analytics] retention_days`
(default 90); older days are forgotten by every store, by the engine once a day, and by the
periodic command `python -m modalcore analytics prune`."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest

from modalcore.__main__ import main
from modalcore.analytics.local import PRUNE_EVERY_MS, LocalAnalyticsSink
from modalcore.ports.analytics import TrackedEvent
from modalcore.runtime.clock import FakeClock
from modalcore.server.config import AnalyticsConfig
from modalcore.store.base import SessionStore, StoredEvent
from modalcore.store.memory import MemoryStore
from modalcore.store.redis import RedisStore
from modalcore.store.sqlite import SqliteStore

DAY = 86_400_000
NOW = 1_795_000_000_000  # 2026-11-18 (UTC)
_prefixes = itertools.count()


def stored(event_id: str, days_ago: float, name: str = "MODAL_OPEN") -> StoredEvent:
    return StoredEvent(event_id, "proj", "s1", name, int(NOW - days_ago * DAY), b"{}")


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    if request.param == "memory":
        return MemoryStore()
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        return RedisStore.from_url(url, 1000, prefix=f"ret{next(_prefixes)}:")
    return SqliteStore(tmp_path / "s.db")


async def test_rule_every_store_forgets_the_days_before_the_cutoff(store: SessionStore) -> None:
    for i, days_ago in enumerate((120, 120, 91, 89, 1, 0)):
        await store.analytics.add(stored(f"e{i}", days_ago))
    assert sum(row[3] for row in await store.analytics.counts()) == 6
    assert await store.analytics.prune(NOW - 90 * DAY) == 3
    days = {row[1] for row in await store.analytics.counts()}
    assert sum(row[3] for row in await store.analytics.counts()) == 3
    assert min(days) >= "2026-08-20"  # 90 days before 2026-11-18
    assert await store.analytics.prune(NOW - 90 * DAY) == 0
    await store.close()


def test_rule_the_retention_defaults_to_90_days_and_is_bounded() -> None:
    assert AnalyticsConfig().retention_days == 90
    with pytest.raises(ValueError):
        AnalyticsConfig(retention_days=0)


def event(at: int) -> TrackedEvent:
    return TrackedEvent("s1", "proj", "MODAL_OPEN", at, event_id=f"new-{at}")


def test_rule_the_engine_prunes_once_a_day_while_it_keeps_events() -> None:
    async def run() -> list[int]:
        store = MemoryStore()
        await store.analytics.add(stored("old", 200))
        await store.analytics.add(stored("recent", 10))
        clock = FakeClock(NOW)
        sink = LocalAnalyticsSink(store, clock, retention_days=30)
        totals = []
        sink.track(event(clock.now_ms()))
        await sink.flush()
        totals.append(sum(r[3] for r in await store.analytics.counts()))  # old forgotten, new kept
        await store.analytics.add(stored("old2", 100))
        sink.track(event(clock.now_ms() + 1))
        await sink.flush()
        totals.append(sum(r[3] for r in await store.analytics.counts()))  # same day: not pruned again
        clock.advance(PRUNE_EVERY_MS)
        sink.track(event(clock.now_ms()))
        await sink.flush()
        totals.append(sum(r[3] for r in await store.analytics.counts()))
        return totals

    assert asyncio.run(run()) == [2, 4, 4]  # old2 forgotten, one more kept


def test_rule_the_prune_command_forgets_old_events_in_a_sqlite_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import time

    now = int(time.time() * 1000)
    path = tmp_path / "engine.db"

    async def fill() -> None:
        store = SqliteStore(path)
        for i, days_ago in enumerate((400, 100, 10, 0)):
            await store.analytics.add(StoredEvent(f"e{i}", "proj", "s1", "MODAL_OPEN", now - days_ago * DAY, b"{}"))
        await store.close()

    async def remaining() -> int:
        store = SqliteStore(path)
        try:
            return sum(r[3] for r in await store.analytics.counts())
        finally:
            await store.close()

    asyncio.run(fill())
    assert main(["analytics", "prune", "--store", str(path)]) == 0
    assert asyncio.run(remaining()) == 2 and "2 events before" in capsys.readouterr().out
    assert main(["analytics", "prune", "--store", str(path), "--days", "5"]) == 0
    assert asyncio.run(remaining()) == 1
    assert main(["analytics", "prune", "--store", str(path), "--days", "1"]) == 0
    out = capsys.readouterr().out  # issue 46: the right number, not "1 events", "1 days"
    assert out.splitlines()[-1].startswith("ok: 0 events before ") and out.rstrip().endswith("(retention 1 day)")
    assert "ok: 1 event before " in out.splitlines()[-2]
    assert main(["analytics", "prune", "--store", str(path), "--days", "0"]) == 2
    assert main(["analytics", "prune", "--store", str(tmp_path / "missing.db")]) == 2
