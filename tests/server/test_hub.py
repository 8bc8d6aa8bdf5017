"""The hub without sockets: tokens, restore from the store, eviction races, the TTL sweep."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from modalcore.runtime.analytics import MemorySink
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.services import default_services
from modalcore.server.hub import SWEEP_EVERY_MS, Hub
from modalcore.slices.options import parse_options
from modalcore.store.memory import MemoryStore
from modalcore.testing import FakeOutlet, join_frame, make_test_config
from modalcore.wire.frames import Join

HOUR_MS = 3600 * 1000


@pytest.fixture
async def hub() -> AsyncIterator[Hub]:
    config = make_test_config(idle_evict_s=60, store={"ttl_hours": 2})
    store = MemoryStore(ttl_ms=config.store.ttl_ms)
    the_hub = Hub(config=config, secret=b"s", clock=FakeClock(), services=default_services(),
                  analytics=MemorySink(), store=store)
    the_hub.start()
    yield the_hub
    await the_hub.close()


def clock_of(hub: Hub) -> FakeClock:
    if not isinstance(hub.clock, FakeClock):
        raise TypeError("this hub runs on a FakeClock")
    return hub.clock


async def new_runner(hub: Hub) -> tuple[str, FakeOutlet]:
    join = Join.model_validate(join_frame())
    runner = await hub.create("https://app.example.com", join, parse_options(join.opts))
    outlet = FakeOutlet()
    await runner.attach(outlet, hub.issue_token(runner.id), resumed=False, last=None)
    return runner.id, outlet


async def test_tokens_name_their_session_until_they_expire(hub: Hub) -> None:
    session_id, _ = await new_runner(hub)
    token = hub.issue_token(session_id)
    assert hub.session_for_token(token) == session_id
    assert hub.session_for_token(token + "0") is None
    clock_of(hub).advance(2 * HOUR_MS + 1000)
    assert hub.session_for_token(token) is None


async def test_evicted_session_is_restored_on_find(hub: Hub) -> None:
    session_id, outlet = await new_runner(hub)
    runner = hub.runners[session_id]
    runner.detach(outlet)
    await runner.settled()
    clock_of(hub).advance(60_000)
    assert runner.finished is not None
    await runner.finished
    assert len(hub) == 0
    restored = await hub.find(session_id)
    assert restored is not None and restored is not runner
    assert restored.session.out_seq == runner.session.out_seq
    assert restored.session.model == runner.session.model
    assert len(hub) == 1
    assert await hub.find("unknown-session") is None


async def test_find_waits_for_an_eviction_in_progress(hub: Hub) -> None:
    session_id, outlet = await new_runner(hub)
    runner = hub.runners[session_id]
    runner.detach(outlet)
    await runner.settled()
    clock_of(hub).advance(60_000)  # the evict input is queued, not processed yet
    assert await hub.find(session_id) is runner
    newer = FakeOutlet()
    resumed = await hub.resume(session_id, "test", newer, last=None)
    assert resumed is not None and resumed is not runner and not resumed.closing
    assert runner.closing
    assert newer.types()[:3] == ["joined", "theme", "snapshot"]
    assert newer.frames[0]["resumed"] is True
    assert await hub.resume(session_id, "another-project", FakeOutlet(), last=None) is None


async def test_sweep_drops_sessions_past_the_ttl(hub: Hub) -> None:
    await hub.store.save("old", b"x", clock_of(hub).now_ms())
    clock_of(hub).advance(SWEEP_EVERY_MS)
    assert await hub.sweep() == 0  # 1 h idle < 2 h TTL
    clock_of(hub).advance(2 * SWEEP_EVERY_MS)
    assert await hub.store.load("old", clock_of(hub).now_ms()) is None
