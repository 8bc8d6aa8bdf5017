"""Issue 27, at the stores: a Redis restarted under a live engine, and a SQLite file another
process keeps locked.

Rules checked:
- after Redis restarts, saves on connections the pool made before land (no "Connection closed
  by server": a dead pooled connection is made anew);
- a SQLite commit that fails keeps the held saves (the newest per session) and retries them
  until they are committed; meanwhile `failing()` says why, `held_unsaved()` counts them and
  `flush()` raises StoreWriteFailed, so a wallet request waiting on it is not sent.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from modalcore.store.base import StoreWriteFailed
from modalcore.store.redis import RedisStore
from modalcore.store.redis_server import RedisProcess
from modalcore.store.sqlite import SqliteStore
from modalcore_testing import RunnerRig


async def test_rule_saves_land_on_fresh_connections_after_redis_restarts(tmp_path: Path) -> None:
    redis = RedisProcess(str(tmp_path))
    redis.start()
    store = RedisStore.from_url(redis.url, prefix="restart:")
    try:
        # several connections in the pool, all made before the restart
        await asyncio.gather(*(store.save(f"s{n}", b"before", 1) for n in range(4)))
        redis.stop()
        redis.start()
        await asyncio.gather(*(store.save(f"s{n}", b"after", 2) for n in range(4)))
        assert [await store.load(f"s{n}", 3) for n in range(4)] == [b"after"] * 4
    finally:
        await store.close()
        redis.stop()


def _on_disk(path: Path, session_id: str) -> bytes | None:
    db = sqlite3.connect(str(path))
    try:
        row = db.execute("SELECT data FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return bytes(row[0]) if row else None
    finally:
        db.close()


@pytest.fixture()
def locked(tmp_path: Path) -> Iterator[tuple[Path, Callable[[], None]]]:
    """The sessions file, and a release for the write lock another connection holds on it."""
    path = tmp_path / "sessions.db"
    SqliteStore(path)._db.close()  # the schema
    other = sqlite3.connect(str(path), isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")

    def release() -> None:
        if other.in_transaction:
            other.execute("COMMIT")

    try:
        yield path, release
    finally:
        release()
        other.close()


def _quick(store: SqliteStore) -> SqliteStore:
    store._db.execute("PRAGMA busy_timeout = 20")  # fail fast on the lock (the default waits 5 s)
    return store


async def _poll(done: Callable[[], bool]) -> None:
    for _ in range(2000):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached")


async def test_rule_sqlite_keeps_and_retries_saves_while_the_file_is_locked(
        locked: tuple[Path, Callable[[], None]]) -> None:
    path, release = locked
    store = _quick(SqliteStore(path, write_behind_ms=5))
    await store.save("a", b"one", 10)
    with pytest.raises(StoreWriteFailed):
        await store.flush()
    await store.save("a", b"two", 11)  # the newest per session waits
    failing = store.failing()
    assert failing is not None and "locked" in failing and "save" in failing
    assert store.held_unsaved() == 1
    assert await store.load("a", 12) == b"two"  # reads see what waits
    release()
    await _poll(lambda: _on_disk(path, "a") == b"two")  # retried by itself, no flush needed
    assert store.failing() is None and store.held_unsaved() == 0
    await store.close()


async def test_rule_sqlite_locked_a_durable_save_lands_only_once_committed(
        rig: RunnerRig, locked: tuple[Path, Callable[[], None]]) -> None:
    """What the runner asks before a wallet request leaves (write-ahead): False while the file
    is locked, and the worker's health says so."""
    path, release = locked
    store = _quick(SqliteStore(path, write_behind_ms=5))
    rig.runner.deps.store = store
    saves = rig.runner.deps.saves
    assert saves is not None
    assert await saves.save(rig.session.id, b"state", 1, {}, durable=True) is False
    assert saves.health().reason is not None and saves.health().unsaved == 1
    release()
    assert await saves.save(rig.session.id, b"state2", 2, {}, durable=True) is True
    assert _on_disk(path, rig.session.id) == b"state2"
    assert saves.health().reason is None
    await store.close()
