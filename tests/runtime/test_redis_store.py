"""The Redis store against a real redis-server (issue 17): the audit log's append-only rule,
analytics counts, what a save costs in Redis commands, and a session resumed by another engine
process sharing the Redis."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from modalcore.ledger.chain import StoredEntry
from modalcore.store.base import AuditConflict, StoredEvent
from modalcore.store.redis import RedisStore
from modalcore_testing import Client, make_test_config, start_server

_prefixes = itertools.count()


@pytest.fixture()
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    redis_store = RedisStore.from_url(redis_url, prefix=f"r{next(_prefixes)}:")
    yield redis_store
    await redis_store.close()


async def test_rule_the_redis_audit_log_is_append_only(store: RedisStore) -> None:
    await store.audit.append(StoredEntry("s1", 2, b"two", "h2"))
    await store.audit.append(StoredEntry("s1", 1, b"one", "h1"))
    await store.audit.append(StoredEntry("s2", 1, b"x", "hx"))
    with pytest.raises(AuditConflict):
        await store.audit.append(StoredEntry("s1", 1, b"forged", "hf"))
    entries = await store.audit.entries("s1")
    assert [(e.seq, e.body, e.hash) for e in entries] == [(1, b"one", "h1"), (2, b"two", "h2")]
    assert await store.audit.head("s1") == StoredEntry("s1", 2, b"two", "h2")
    assert await store.audit.sessions() == ["s1", "s2"]
    await store.expire(10**15)  # sessions expire; their audit log stays
    assert len(await store.audit.entries("s1")) == 2


async def test_analytics_events_are_counted_once_per_id(store: RedisStore) -> None:
    day = 1_700_000_000_000
    for event_id in ("e1", "e2", "e1"):
        await store.analytics.add(StoredEvent(event_id, "p", "s", "MODAL_OPEN", day, b"{}"))
    await store.analytics.add(StoredEvent("e3", "p", "s", "MODAL_CLOSE", day, b"{}"))
    assert await store.analytics.counts() == [
        ("p", "2023-11-14", "MODAL_CLOSE", 1), ("p", "2023-11-14", "MODAL_OPEN", 2)]


async def test_a_save_is_one_request_of_three_commands_inside_redis(
        store: RedisStore, redis_url: str) -> None:
    """Counted by the server itself (INFO commandstats): one EVALSHA, inside it the lease check,
    the touched time and the bytes; no MULTI/EXEC."""
    admin = Redis.from_url(redis_url)
    try:
        await store.save("s", b"x", 0)  # the first save also takes the lease
        before = await admin.info("commandstats")
        await store.save("s", b"state", 1)
        after = await admin.info("commandstats")
    finally:
        await admin.aclose()

    def calls(info: dict[str, dict[str, int]], name: str) -> int:
        return int(info.get(f"cmdstat_{name}", {}).get("calls", 0))

    written = {name: calls(after, name) - calls(before, name)
               for name in ("evalsha", "get", "set", "zadd", "multi", "exec")}
    assert written == {"evalsha": 1, "get": 1, "set": 1, "zadd": 1, "multi": 0, "exec": 0}
    assert await store.load("s", 2) == b"state"


async def test_rule_one_owner_a_claim_takes_the_session_over(redis_url: str) -> None:
    """Two engine processes' stores on one Redis: after B claims the session, A's saves of its
    stale copy are refused, and A knows it no longer owns it."""
    prefix = f"o{next(_prefixes)}:"
    a = RedisStore.from_url(redis_url, prefix=prefix)
    b = RedisStore.from_url(redis_url, prefix=prefix)
    try:
        await a.save("s", b"by a", 0)
        assert await a.leases.owns("s") and not await b.leases.owns("s")
        await b.save("s", b"b without the lease", 1)
        assert await b.load("s", 2) == b"by a"
        await b.leases.claim("s")
        await b.save("s", b"by b", 3)
        await a.save("s", b"stale a", 4)
        assert await a.load("s", 5) == b"by b"
        assert not await a.leases.owns("s") and await b.leases.owns("s")
    finally:
        await a.close()
        await b.close()


async def test_another_engine_on_the_same_redis_resumes_the_session(redis_url: str) -> None:
    """Worker A serves a session and stops; worker B, sharing only the Redis, takes the rejoin
    with the same tree."""
    config = make_test_config(store={"kind": "redis", "url": redis_url,
                                     "prefix": f"w{next(_prefixes)}:"})
    with start_server(config) as first:
        async with first.client() as client:
            await client.join()
            await client.intent("host", "open")
            await client.recv_until(lambda f: f["t"] == "host_event")
            await client.quiet(0.3)
            runner = first.hub.runners[client.session]
            tree = runner.session.tree.to_wire()
    with start_server(config) as second:
        assert len(second.hub) == 0
        async with Client.open(second.ws_url(), seq=client.seq) as again:
            frames = await again.join(resume=client.resume, last=5)
        assert frames[0]["session"] == client.session and frames[0]["resumed"] is True
        snapshot = next(f for f in frames if f["t"] == "snapshot")
        assert snapshot["tree"] == tree and snapshot["tree"]["p"]["open"] is True


async def test_many_sessions_saving_at_once_all_land(store: RedisStore) -> None:
    """Hundreds of sessions saving in the same instant (a load peak) wait for a connection of
    the bounded pool instead of failing."""
    await asyncio.gather(*(store.save(f"s{i}", b"x", i) for i in range(400)))
    assert await store.count() == 400


async def test_rule_analytics_events_are_held_and_sent_together_in_one_request(
        store: RedisStore, redis_url: str) -> None:
    """Issue 17: `analytics.add_nowait` keeps an event without a task or a request; within
    EVENTS_BEHIND_MS the events waiting go in one request; a repeated id is counted once, and
    counts read meanwhile include what waits."""
    from modalcore.store.redis_events import EVENTS_BEHIND_MS

    day = 1_700_000_000_000
    admin = Redis.from_url(redis_url)
    try:
        before = store.commands
        for event_id in ("h1", "h2", "h1", "h3"):
            assert store.analytics.add_nowait(StoredEvent(event_id, "p", "s", "MODAL_OPEN", day, b"{}"))
        assert store.commands == before  # nothing sent yet
        assert await admin.hgetall(f"{store.prefix}evc") == {}
        await asyncio.sleep(EVENTS_BEHIND_MS / 1000 * 5)
        assert store.commands == before + 1  # one request for the four
        assert await admin.hgetall(f"{store.prefix}evc") == {b"p|2023-11-14|MODAL_OPEN": b"3"}
        store.analytics.add_nowait(StoredEvent("h4", "p", "s", "MODAL_CLOSE", day, b"{}"))
        assert await store.analytics.counts() == [
            ("p", "2023-11-14", "MODAL_CLOSE", 1), ("p", "2023-11-14", "MODAL_OPEN", 3)]
    finally:
        await admin.aclose()


async def test_rule_held_analytics_events_are_sent_at_close(redis_url: str) -> None:
    prefix = f"ev{next(_prefixes)}:"
    first = RedisStore.from_url(redis_url, prefix=prefix)
    first.analytics.add_nowait(StoredEvent("c1", "p", "s", "MODAL_OPEN", 1_700_000_000_000, b"{}"))
    await first.close()
    second = RedisStore.from_url(redis_url, prefix=prefix)
    try:
        assert await second.analytics.counts() == [("p", "2023-11-14", "MODAL_OPEN", 1)]
    finally:
        await second.close()
