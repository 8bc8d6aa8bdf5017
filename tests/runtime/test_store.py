"""Persisted sessions (msgpack, never pickle) and the memory and SQLite stores."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest

from modalcore.engine.persist import (
    PendingTimer,
    PersistError,
    load_bytes,
    session_from_bytes,
    session_to_bytes,
)
from modalcore.engine.session import Session
from modalcore.runtime.clock import FakeClock
from modalcore.slices.snack import SnackReshowDue
from modalcore.store.base import SessionStore
from modalcore.store.memory import MemoryStore
from modalcore.store.redis import RedisStore
from modalcore.store.sqlite import SqliteStore
from modalcore.wire.codec import encode
from modalcore.wire.frames import parse_client_frame


def test_session_round_trip(make_session: Callable[[FakeClock], Session]) -> None:
    clock = FakeClock()
    session = make_session(clock)
    session.welcome("t", resumed=False, last=None)
    frame = {"t": "intent", "s": 1, "a": 3, "iid": "x1", "node": "host", "act": "open", "args": {}}
    session.receive(parse_client_frame(encode(frame)), clock.now_ms())
    timers = [PendingTimer("snack-reshow", 123, SnackReshowDue("hi", "error", False))]
    data = session_to_bytes(session, timers)
    assert b"\x80\x04" not in data[:2]  # not a pickle
    assert msgpack.unpackb(data)["format"] == 2  # the model packed slice by slice (issue 17)
    restored, restored_timers = load_bytes(data)
    assert restored.model == session.model
    assert (restored.id, restored.version, restored.out_seq, restored.in_seq, restored.acked) == (
        session.id, session.version, session.out_seq, session.in_seq, session.acked)
    assert restored.intents == session.intents
    assert restored.host_sent == session.host_sent
    assert restored.theme_sent == session.theme_sent
    assert restored.tree == session.tree
    assert restored_timers == timers
    assert not restored.ring  # the ring does not survive
    # a retransmitted intent is still answered with its first outcome after a restore
    out = restored.receive(parse_client_frame(encode(frame)), clock.now_ms())
    assert [f.t for f in out.frames] == ["intent_ack"]
    assert session_from_bytes(data).id == "s1"


@pytest.mark.parametrize("data", [b"", b"\xc1", msgpack.packb([1, 2]), msgpack.packb({"format": 9}),
                                  msgpack.packb({"format": 1, "id": "x"})])
def test_unreadable_bytes(data: bytes) -> None:
    with pytest.raises(PersistError):
        load_bytes(data)


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    if request.param == "memory":
        return MemoryStore(ttl_ms=1000)
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        return RedisStore.from_url(url, ttl_ms=1000, prefix=f"t{next(_prefixes)}:")
    return SqliteStore(tmp_path / "s.db", ttl_ms=1000)


_prefixes = itertools.count()


async def test_store_contract(store: SessionStore) -> None:
    assert await store.load("a", 0) is None
    await store.save("a", b"one", 0)
    await store.save("b", b"two", 0)
    await store.save("a", b"three", 10)
    assert await store.load("a", 10) == b"three"
    assert await store.count() == 2
    await store.touch("b", 900)
    assert await store.expire(1500) == 1  # a (touched at 10) is idle > 1000 ms
    assert await store.load("a", 1500) is None
    assert await store.load("b", 1500) == b"two"
    assert await store.load("b", 2000) is None  # expired on read too
    await store.save("c", b"x", 0)
    await store.delete("c")
    assert await store.load("c", 0) is None
    await store.close()


async def test_sqlite_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "sessions.db"
    first = SqliteStore(path)
    await first.save("s", b"\x00\x01state", 5)
    await first.close()
    second = SqliteStore(path)
    assert await second.load("s", 6) == b"\x00\x01state"
    await second.close()


async def test_rule_notes_last_their_time_keep_a_bound_and_are_taken_once(store: SessionStore) -> None:
    """Issue 42: a note (a flow's step another host may finish) is read while it lasts, taken
    once, and a kind holds at most `most` notes, the first to end dropped first."""
    await store.notes.note("k", "a", b"one", 0, 100, 3)
    assert await store.notes.noted("k", "a", 100) == b"one" and await store.notes.noted("k", "a", 101) is None
    assert await store.notes.noted("other", "a", 0) is None
    assert await store.notes.take("k", "a", 50) == b"one"
    assert await store.notes.take("k", "a", 50) is None and await store.notes.noted("k", "a", 50) is None
    await store.notes.note("k", "old", b"x", 0, 100, 3)
    assert await store.notes.take("k", "old", 101) is None  # expired: refused
    for i in range(5):
        await store.notes.note("k", f"n{i}", b"%d" % i, 10 + i, 100, 3)
    assert [await store.notes.noted("k", f"n{i}", 20) for i in range(5)] == [None, None, b"2", b"3", b"4"]
    await store.close()
