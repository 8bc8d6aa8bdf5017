"""Issue 17: an event for a session that arrives at a worker not holding its socket (a relay
message, an email code confirmed, a chain event) reaches the owner through Redis pub/sub.
Two apps on one real redis-server, each with its own hub, as two engine processes."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Coroutine
from typing import Any, TypeVar

from modalcore.slices.navigation import HostClosed
from modalcore.store.redis import RedisStore
from modalcore_testing import Client, RunningServer, make_test_config, start_server

T = TypeVar("T")
_prefixes = itertools.count()


async def _on(server: RunningServer, call: Coroutine[Any, Any, T]) -> T:
    """Run `call` on the server's own event loop (it lives in the server's thread)."""
    assert server.hub.loop is not None
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, server.hub.loop))


def _redis(server: RunningServer) -> RedisStore:
    store = server.hub.store.inner  # type: ignore[attr-defined]
    assert isinstance(store, RedisStore)
    return store


def _config(redis_url: str) -> Any:
    return make_test_config(store={"kind": "redis", "url": redis_url,
                                   "prefix": f"route{next(_prefixes)}:"})


async def _opened(client: Client) -> None:
    await client.join()
    await client.intent("host", "open")  # a used session: saved, its lease taken
    await client.recv_until(lambda f: f["t"] == "host_event" and f["kind"] == "state")
    await client.quiet(0.3)


async def test_rule_an_event_arriving_at_another_worker_reaches_the_owner(redis_url: str) -> None:
    config = _config(redis_url)
    with start_server(config) as a, start_server(config) as b:
        a.wait_for(lambda: _redis(a).leases.listening.is_set())
        async with a.client() as visitor:
            await _opened(visitor)
            assert await _on(b, b.hub.route(visitor.session, HostClosed())) == "forwarded"
            frames = await visitor.recv_until(
                lambda f: f["t"] == "host_event" and f["kind"] == "state")
            assert frames[-1]["data"]["open"] is False  # applied by A, sent on A's socket
            assert visitor.session not in b.hub.runners  # B never loaded it
            assert a.hub.runners[visitor.session].session.model.modal.open is False


async def test_rule_an_event_for_a_session_whose_owner_is_gone_is_taken_over(
        redis_url: str) -> None:
    config = _config(redis_url)
    with start_server(config) as b:
        with start_server(config) as a:
            async with a.client() as visitor:
                await _opened(visitor)
                session = visitor.session
        # A stopped (its session saved, its lease still naming A): nobody hears A's channel
        assert await _on(b, b.hub.route(session, HostClosed())) == "here"
        b.wait_for(lambda: session in b.hub.runners)
        await _on(b, b.hub.runners[session].settled())
        assert b.hub.runners[session].session.model.modal.open is False
        assert await _on(b, _redis(b).leases.holder(session)) == _redis(b).leases.worker_id


async def test_an_event_for_no_session_is_reported_gone(redis_url: str) -> None:
    with start_server(_config(redis_url)) as a:
        assert await _on(a, a.hub.route("no-such-session", HostClosed())) == "gone"
