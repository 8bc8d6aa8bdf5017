"""Shared blobs in every store (issue 17): data many sessions hold alike (the wallet directory's
lists) kept once by digest, written with the save that refers to them. Rules, for the memory,
SQLite and Redis stores alike: a session and its blobs read back identical; a blob is written
once however many sessions refer to it; one session's change never affects another's data; a
missing blob is simply absent; blobs live twice the TTL after their last write and a process
writes one again after a TTL."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from modalcore.store.base import MAX_BLOBS_REMEMBERED, BlobLedger, SessionStore
from modalcore.store.memory import MemoryStore
from modalcore.store.redis import RedisStore
from modalcore.store.sqlite import SqliteStore

_prefixes = itertools.count()
PAGE = b"\x91\x81\xa2id\xa8metamask" * 50  # stands for a directory page's msgpack
PICKS = b"\x91\x81\xa2id\xa7rainbow" * 10
X, Y = "aa" * 16, "bb" * 16


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionStore]:
    made: SessionStore
    if request.param == "memory":
        made = MemoryStore(ttl_ms=1000)
    elif request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        made = RedisStore.from_url(url, ttl_ms=1000, prefix=f"blob{next(_prefixes)}:")
    else:
        made = SqliteStore(tmp_path / "s.db", ttl_ms=1000)
    yield made
    await made.close()


async def test_rule_a_session_and_its_blobs_read_back_identical(store: SessionStore) -> None:
    await store.save("a", b"session a", 0, {X: PAGE, Y: PICKS})
    assert await store.load("a", 1) == b"session a"
    assert await store.load_blobs([X, Y], 1) == {X: PAGE, Y: PICKS}
    await store.flush()
    assert await store.load_blobs([Y], 1) == {Y: PICKS}  # committed, read from the store itself


async def test_rule_a_blob_is_written_once_for_every_session(store: SessionStore) -> None:
    await store.save("a", b"session a", 0, {X: PAGE})
    written = store.bytes_written
    await store.save("b", b"session b", 5, {X: PAGE})
    await store.save("a", b"session a2", 6, {X: PAGE})
    assert store.bytes_written - written == len(b"session b") + len(b"session a2")
    await store.flush()
    assert await store.load_blobs([X], 7) == {X: PAGE}


async def test_rule_a_sessions_change_never_affects_another(store: SessionStore) -> None:
    await store.save("a", b"a refers to X", 0, {X: PAGE})
    await store.save("b", b"b refers to X", 0, {X: PAGE})
    await store.save("a", b"a now refers to Y", 10, {Y: PICKS})
    await store.delete("a")
    await store.flush()
    assert await store.load("b", 20) == b"b refers to X"
    assert await store.load_blobs([X], 20) == {X: PAGE}  # deleting a session leaves the blobs
    assert await store.load("a", 20) is None


async def test_rule_a_missing_blob_is_absent_not_an_error(store: SessionStore) -> None:
    await store.save("a", b"a", 0, {X: PAGE})
    assert await store.load_blobs([Y, X, "not hex"], 1) == {X: PAGE}
    assert await store.load_blobs([], 1) == {}


async def test_rule_blobs_live_twice_the_ttl_after_their_last_write(store: SessionStore) -> None:
    await store.save("a", b"a", 0, {X: PAGE})
    written = store.bytes_written
    await store.save("a", b"a", 900, {X: PAGE})  # written less than a TTL ago: not again
    assert store.bytes_written - written == 1
    await store.save("b", b"b", 1500, {X: PAGE})  # more than a TTL ago: written again (renewed)
    assert store.bytes_written - written == 2 + len(PAGE)
    await store.expire(3000)  # 1,500 ms after its last write: kept
    assert await store.load_blobs([X], 3000) == {X: PAGE}
    assert await store.load("b", 3000) is None  # the session itself is gone after one TTL
    await store.expire(3501)  # 2,001 ms after: gone
    assert await store.load_blobs([X], 3501) == {}


def test_rule_a_process_remembers_a_bounded_number_of_blobs() -> None:
    ledger = BlobLedger(ttl_ms=1000)
    ledger.wrote((f"{i:032x}" for i in range(MAX_BLOBS_REMEMBERED + 10)), 0)
    assert ledger.to_write({f"{0:032x}": b"x"}, 1) == {f"{0:032x}": b"x"}  # forgotten: written again
    assert ledger.to_write({f"{MAX_BLOBS_REMEMBERED:032x}": b"x"}, 1) == {}


async def test_rule_sqlite_commits_a_blob_with_the_session_that_refers_to_it(tmp_path: Path) -> None:
    """Write-behind: until the commit neither is in the file (a kill -9 loses both, never only
    the blob); after it both are."""
    store = SqliteStore(tmp_path / "s.db", write_behind_ms=60_000)
    await store.save("a", b"a refers to X", 0, {X: PAGE})

    def in_file() -> tuple[int, int]:
        db = sqlite3.connect(str(tmp_path / "s.db"))
        try:
            return (int(db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]),
                    int(db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]))
        finally:
            db.close()

    assert in_file() == (0, 0)
    assert await store.load_blobs([X], 1) == {X: PAGE}  # held, and read back meanwhile
    await store.flush()
    assert in_file() == (1, 1)
    await store.save("b", b"b refers to X", 1, {X: PAGE})
    await store.close()
    assert in_file() == (2, 1)
    reopened = SqliteStore(tmp_path / "s.db")
    assert await reopened.load_blobs([X], 2) == {X: PAGE}
    await reopened.close()


async def test_rule_sqlite_files_made_before_blobs_open_and_load(tmp_path: Path) -> None:
    db = sqlite3.connect(str(tmp_path / "old.db"))
    db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, data BLOB NOT NULL, touched INTEGER NOT NULL)")
    db.execute("INSERT INTO sessions VALUES ('old', x'0102', 5)")
    db.commit()
    db.close()
    store = SqliteStore(tmp_path / "old.db")
    assert await store.load("old", 6) == b"\x01\x02"
    await store.save("new", b"n", 6, {X: PAGE})
    await store.flush()
    assert await store.load_blobs([X], 7) == {X: PAGE}
    await store.close()


async def test_rule_redis_a_save_with_blobs_is_still_one_request(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url, prefix=f"blob{next(_prefixes)}:")
    other = RedisStore.from_url(redis_url, prefix=store.prefix)  # another engine process
    admin = Redis.from_url(redis_url)
    try:
        before = store.commands
        await store.save("a", b"a", 0, {X: PAGE, Y: PICKS})
        await store.save("b", b"b", 1, {X: PAGE, Y: PICKS})
        assert store.commands - before == 2
        await other.leases.claim("c")
        await other.save("c", b"c", 2, {X: PAGE})  # it has not written X itself: SET NX, kept
        assert await admin.get(f"{store.prefix}b:{X}") == PAGE
        assert await admin.zscore(f"{store.prefix}blobs", X) == 2
        # a save refused by the lease still leaves the blob for the sessions counting on it
        await store.save("c", b"stale", 3, {"cc" * 16: b"new page"})
        assert await store.load("c", 3) == b"c"
        assert await other.load_blobs(["cc" * 16], 3) == {"cc" * 16: b"new page"}
    finally:
        await admin.aclose()
        await other.close()
        await store.close()
