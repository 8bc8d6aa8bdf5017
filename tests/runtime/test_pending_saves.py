"""Issue 27: a session save that fails is kept and retried until it lands (runtime/saves.py), on a
FakeClock against a store that is down until the test brings it back.

Rules checked:
- a failed save waits, only the newest state per session, and lands once the store is back,
  retried with a growing delay (never an older state over a newer one);
- what waits is bounded in sessions and bytes: past them the oldest waiting is dropped, counted;
- `health()` says why and how many sessions are unsaved while saves fail, and nothing once
  they land;
- a durable save (a wallet request waits on it) says whether it landed;
- `drain` (shutdown) waits, bounded, for the store to take what waits.
"""

from __future__ import annotations

import asyncio

import pytest

from modalcore.rules import limits as L
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.saves import PendingSaves
from modalcore.store.base import NO_BLOBS
from modalcore_testing import DownStore


async def _turns() -> None:
    """Let the retry round a clock callback started run to its end."""
    for _ in range(20):
        await asyncio.sleep(0)


async def _advance(clock: FakeClock, ms: int) -> None:
    clock.advance(ms)
    await _turns()


async def test_rule_a_failed_save_waits_newest_only_and_lands_once_the_store_is_back() -> None:
    clock, store = FakeClock(), DownStore()
    saves = PendingSaves(store, clock)
    store.down = True
    assert await saves.save("s", b"one", 1, NO_BLOBS) is False
    assert await saves.save("s", b"two", 2, NO_BLOBS) is False  # replaces "one"
    assert len(saves) == 1 and saves.unsaved("s") == (b"two", NO_BLOBS)
    attempts = store.attempts
    await _advance(clock, L.SAVE_RETRY_FIRST_MS)
    assert store.attempts == attempts + 1  # retried, still down
    await _advance(clock, L.SAVE_RETRY_FIRST_MS)
    assert store.attempts == attempts + 1  # backing off: the next try is later
    store.down = False
    await _advance(clock, L.SAVE_RETRY_MAX_MS)
    assert store.written == [("s", b"two")]  # the newest only; "one" is never written
    assert len(saves) == 0 and saves.unsaved("s") is None
    assert await store.load("s", 3) == b"two"


async def test_rule_a_newer_save_while_one_waits_goes_to_the_same_queue() -> None:
    clock, store = FakeClock(), DownStore()
    saves = PendingSaves(store, clock)
    store.down = True
    await saves.save("s", b"old", 1, NO_BLOBS)
    store.down = False
    # the store is back, but an older state waits: the newer one is queued behind it, not
    # written over it by the session while a retry may be writing the older one
    assert await saves.save("s", b"new", 2, NO_BLOBS) is False
    await _advance(clock, L.SAVE_RETRY_MAX_MS)
    assert store.written == [("s", b"new")]
    assert await saves.save("s", b"newer", 3, NO_BLOBS) is True  # nothing waits: written at once
    assert await store.load("s", 4) == b"newer"


async def test_rule_a_durable_save_says_whether_it_landed() -> None:
    clock, store = FakeClock(), DownStore()
    saves = PendingSaves(store, clock)
    store.down = True
    assert await saves.save("s", b"one", 1, NO_BLOBS, durable=True) is False
    assert await saves.save("s", b"two", 2, NO_BLOBS, durable=True) is False  # tried at once, failed
    store.down = False
    assert await saves.save("s", b"three", 3, NO_BLOBS, durable=True) is True  # tried at once: landed
    assert len(saves) == 0 and await store.load("s", 4) == b"three"


async def test_rule_health_says_why_and_how_many_while_saves_fail() -> None:
    clock, store = FakeClock(), DownStore()
    saves = PendingSaves(store, clock)
    assert saves.health().reason is None and saves.health().unsaved == 0
    store.down = True
    await saves.save("a", b"1", 1, NO_BLOBS)
    await saves.save("b", b"2", 1, NO_BLOBS)
    health = saves.health()
    assert health.unsaved == 2
    assert health.reason is not None and "ConnectionError" in health.reason and "save" in health.reason
    store.down = False
    await _advance(clock, L.SAVE_RETRY_MAX_MS)
    assert saves.health().reason is None and saves.health().unsaved == 0


async def test_rule_what_waits_is_bounded_in_sessions_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(L, "UNSAVED_SESSIONS", 3)
    monkeypatch.setattr(L, "UNSAVED_BYTES", 100)
    clock, store = FakeClock(), DownStore()
    saves = PendingSaves(store, clock)
    store.down = True
    for n in range(5):
        await saves.save(f"s{n}", b"x", 1, NO_BLOBS)
    assert len(saves) == 3 and saves.unsaved("s0") is None and saves.unsaved("s4") is not None
    await saves.save("big", b"y" * 99, 1, NO_BLOBS)  # over the bytes: the oldest go first
    assert saves.unsaved("big") is not None and len(saves) == 2
    assert saves.health().dropped == 4


async def test_rule_drain_waits_for_the_store_and_is_bounded() -> None:
    clock, store = FakeClock(), DownStore()
    saves = PendingSaves(store, clock)
    store.down = True
    await saves.save("s", b"one", 1, NO_BLOBS)
    assert await saves.drain(0) == 1  # no time given: left unsaved (logged)

    async def back_soon() -> None:
        await asyncio.sleep(0.05)
        store.down = False

    task = asyncio.ensure_future(back_soon())
    assert await saves.drain(30) == 0  # returns once it landed, long before the bound
    await task
    assert await store.load("s", 2) == b"one"
