"""The hub without sockets: tokens, restore from the store, eviction races, the TTL sweep,
unused sessions, sessions per address."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from modalcore.runtime.analytics import MemorySink
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.services import default_services
from modalcore.rules.limits import RESUME_GRACE_MS, UNUSED_SESSION_EVICT_MS
from modalcore.server.hub import Hub
from modalcore.server.upkeep import SWEEP_EVERY_MS
from modalcore.server.tokens import Claim
from modalcore.slices.options import OptionsError, parse_options
from modalcore.store.leases import Leases
from modalcore.store.memory import MemoryStore
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, FakeOutlet, join_frame, make_test_config
from modalcore.wire.frames import Intent, Join

HOUR_MS = 3600 * 1000


@contextlib.asynccontextmanager
async def make_hub(**config_data: Any) -> AsyncIterator[Hub]:
    config = make_test_config(**config_data)
    store = MemoryStore(ttl_ms=config.store.ttl_ms)
    the_hub = Hub(config=config, secret=b"s", clock=FakeClock(), services=default_services(),
                  analytics=MemorySink(), store=store)
    the_hub.start()
    try:
        yield the_hub
    finally:
        await the_hub.close()


@pytest.fixture
async def hub() -> AsyncIterator[Hub]:
    async with make_hub(idle_evict_s=60, store={"ttl_hours": 2}) as the_hub:
        yield the_hub


def clock_of(hub: Hub) -> FakeClock:
    if not isinstance(hub.clock, FakeClock):
        raise TypeError("this hub runs on a FakeClock")
    return hub.clock


async def new_runner(hub: Hub, *, used: bool = True, address: str = "") -> tuple[str, FakeOutlet]:
    """A session with a socket attached; `used`: one of its intents was applied."""
    join = Join.model_validate(join_frame())
    runner = await hub.create(TEST_ORIGIN, join, parse_options(join.opts), address)
    outlet = FakeOutlet()
    await runner.attach(outlet, hub.token_issuer(runner.id, TEST_PROJECT, TEST_ORIGIN),
                        resumed=False, last=None)
    if used:
        runner.put_frame(Intent(t="intent", s=2, a=0, iid="i1", node="host", act="open"), outlet)
        await runner.settled()
    return runner.id, outlet


async def test_tokens_name_their_session_until_they_expire(hub: Hub) -> None:
    session_id, outlet = await new_runner(hub)
    token = outlet.frames[0]["resume"]
    assert hub.read_token(token, TEST_PROJECT, TEST_ORIGIN) == Claim(session_id, 1)
    assert hub.read_token(token + "0", TEST_PROJECT, TEST_ORIGIN) is None
    clock_of(hub).advance(2 * HOUR_MS + 1000)
    assert hub.read_token(token, TEST_PROJECT, TEST_ORIGIN) is None


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


async def test_unreadable_saved_state_is_dropped_with_a_typed_warning_and_no_traceback(
        hub: Hub, caplog: pytest.LogCaptureFixture) -> None:
    await hub.store.save("broken", b"\xc1 not a session", clock_of(hub).now_ms())
    with caplog.at_level("WARNING", logger="modalcore.server.hub"):
        assert await hub.find("broken") is None
    assert await hub.store.load("broken", clock_of(hub).now_ms()) is None
    warnings = [r for r in caplog.records if "unreadable" in r.getMessage()]
    assert len(warnings) == 1 and "not msgpack" in warnings[0].getMessage()
    assert warnings[0].exc_info is None


async def test_find_waits_for_an_eviction_in_progress(hub: Hub) -> None:
    session_id, outlet = await new_runner(hub)
    runner = hub.runners[session_id]
    runner.detach(outlet)
    await runner.settled()
    clock_of(hub).advance(60_000)  # the evict input is queued, not processed yet
    assert await hub.find(session_id) is runner
    newer = FakeOutlet()
    claim = Claim(session_id, 1)
    resumed = await hub.resume(claim, TEST_PROJECT, TEST_ORIGIN, newer, last=None)
    assert resumed is not None and resumed is not runner and not resumed.closing
    assert runner.closing
    assert newer.types()[:3] == ["joined", "theme", "snapshot"]
    assert newer.frames[0]["resumed"] is True
    assert await hub.resume(Claim(session_id, 2), "another-project", TEST_ORIGIN, FakeOutlet(),
                            last=None) is None


async def test_sweep_drops_sessions_past_the_ttl(hub: Hub) -> None:
    await hub.store.save("old", b"x", clock_of(hub).now_ms())
    clock_of(hub).advance(SWEEP_EVERY_MS)
    assert await hub.upkeep.sweep() == 0  # 1 h idle < 2 h TTL
    clock_of(hub).advance(2 * SWEEP_EVERY_MS)
    assert await hub.store.load("old", clock_of(hub).now_ms()) is None


async def test_a_session_never_used_is_not_stored_and_leaves_memory_after_a_minute() -> None:
    async with make_hub(idle_evict_s=600) as hub:
        await check_unused_session_leaves(hub)


async def check_unused_session_leaves(hub: Hub) -> None:
    unused_id, unused_outlet = await new_runner(hub, used=False)
    used_id, used_outlet = await new_runner(hub, used=True)
    unused, used = hub.runners[unused_id], hub.runners[used_id]
    assert await hub.store.load(unused_id, clock_of(hub).now_ms()) is None
    assert await hub.store.load(used_id, clock_of(hub).now_ms()) is not None
    clock_of(hub).advance(10 * UNUSED_SESSION_EVICT_MS)  # attached: nothing leaves
    await unused.settled()
    assert not unused.closing
    unused.detach(unused_outlet)
    used.detach(used_outlet)
    await unused.settled()
    await used.settled()
    clock_of(hub).advance(UNUSED_SESSION_EVICT_MS - 1)
    await unused.settled()
    assert unused_id in hub.runners
    clock_of(hub).advance(1)
    assert unused.finished is not None
    await unused.finished
    assert unused_id not in hub.runners and used_id in hub.runners  # a used one stays 600 s
    assert await hub.store.count() == 1
    assert await hub.find(unused_id) is None


async def resume_with(hub: Hub, token: str, origin: str = TEST_ORIGIN) -> FakeOutlet | None:
    """Rejoin with `token` from `origin`: the new socket's outlet, or None when refused."""
    claim = hub.read_token(token, TEST_PROJECT, origin)
    if claim is None:
        return None
    outlet = FakeOutlet()
    runner = await hub.resume(claim, TEST_PROJECT, origin, outlet, last=None)
    return outlet if runner is not None else None


async def test_each_join_rotates_the_token_and_the_previous_one_has_a_grace(hub: Hub) -> None:
    session_id, outlet = await new_runner(hub)
    first = outlet.frames[0]["resume"]
    again = await resume_with(hub, first)
    assert again is not None
    second = again.frames[0]["resume"]
    assert second != first and second.split(".")[:2] == [session_id, "2"]
    clock_of(hub).advance(RESUME_GRACE_MS - 1)
    racing = await resume_with(hub, first)  # a reconnect that raced the `joined` frame
    assert racing is not None and racing.frames[0]["session"] == session_id
    third = racing.frames[0]["resume"]
    assert await resume_with(hub, first) is None  # two generations back
    clock_of(hub).advance(RESUME_GRACE_MS)
    assert await resume_with(hub, second) is None  # replaced more than the grace ago
    latest = await resume_with(hub, third)
    assert latest is not None and latest.frames[0]["resumed"] is True


async def test_a_token_is_bound_to_its_origin_and_project(hub: Hub) -> None:
    _, outlet = await new_runner(hub)
    token = outlet.frames[0]["resume"]
    assert hub.read_token(token, TEST_PROJECT, "https://other.vercel.app") is None
    assert hub.read_token(token, "another-project", TEST_ORIGIN) is None
    assert hub.read_token(token, TEST_PROJECT, TEST_ORIGIN.upper()) is not None  # same origin


async def test_leave_ends_the_session_and_forgets_it(hub: Hub) -> None:
    session_id, outlet = await new_runner(hub)
    token = outlet.frames[0]["resume"]
    runner = hub.runners[session_id]
    assert await hub.store.load(session_id, clock_of(hub).now_ms()) is not None
    runner.leave(FakeOutlet())  # another socket than the session's: ignored
    await runner.settled()
    assert not runner.closing
    runner.leave(outlet)
    assert runner.finished is not None
    await runner.finished
    assert outlet.closed == 1000
    assert session_id not in hub.runners
    assert await hub.store.load(session_id, clock_of(hub).now_ms()) is None
    assert await resume_with(hub, token) is None


async def test_live_sockets_are_counted_per_client_address() -> None:
    """Issue 27 item 6: the cap counts sockets admitted and not yet closed, not sessions."""
    async with make_hub(max_sessions_per_address=2) as hub:
        assert hub.addresses.admit("10.0.0.1") and not hub.addresses.address_full("10.0.0.1")
        assert hub.addresses.admit("10.0.0.1") and hub.addresses.address_full("10.0.0.1")
        assert not hub.addresses.admit("10.0.0.1")  # refused: nothing counted
        assert not hub.addresses.address_full("10.0.0.2")
        hub.addresses.release("10.0.0.1")
        assert not hub.addresses.address_full("10.0.0.1") and hub.addresses.admit("10.0.0.1")


async def test_a_socket_taking_over_its_attached_session_is_admitted_at_the_cap() -> None:
    async with make_hub(max_sessions_per_address=1) as hub:
        session_id, _ = await new_runner(hub, address="10.0.0.1")
        assert hub.addresses.admit("10.0.0.1")
        assert not hub.addresses.admit("10.0.0.1")
        assert hub.addresses.admit("10.0.0.1", replacing=session_id)  # its old socket is closed by the takeover
        assert hub.addresses.over_cap("10.0.0.1")


async def test_sessions_without_a_socket_per_address_are_bounded_in_memory() -> None:
    """Closing sockets frees the cap at once, so what they leave behind is bounded apart: at
    each admission the address keeps fewer detached sessions than the cap, oldest leave first."""
    async with make_hub(max_sessions_per_address=2) as hub:
        made = []
        for _ in range(5):
            assert hub.addresses.admit("10.0.0.1")
            session_id, outlet = await new_runner(hub, address="10.0.0.1")
            hub.runners[session_id].detach(outlet)
            await hub.runners[session_id].settled()
            hub.addresses.release("10.0.0.1")
            made.append(session_id)
        for session_id in made:
            runner = hub.runners.get(session_id)
            if runner is not None and runner.closing and runner.finished is not None:
                await runner.finished
        assert [s for s in made if s in hub.runners] == made[-2:]
        assert await hub.store.load(made[0], clock_of(hub).now_ms()) is not None  # saved, not lost


async def test_a_token_whose_rotation_was_lost_in_a_crash_still_resumes(hub: Hub) -> None:
    """The engine signed generation 2 and died before saving that: the saved session says 1.
    Only the engine can sign a generation, so a newer one than the saved one is accepted."""
    session_id, _ = await new_runner(hub)
    assert hub.runners[session_id].session.token_gen == 1
    issued_before_the_crash = hub.token_issuer(session_id, TEST_PROJECT, TEST_ORIGIN)(2)
    again = await resume_with(hub, issued_before_the_crash)
    assert again is not None and again.frames[0]["resumed"] is True
    assert again.frames[0]["resume"].split(".")[1] == "3"
    clock_of(hub).advance(RESUME_GRACE_MS)
    assert await resume_with(hub, issued_before_the_crash) is None


def test_sessions_sending_the_same_options_share_one_parsed_copy(hub: Hub) -> None:
    """Issue 17 (idle memory): HostOptions is immutable, so pages sending the same map share
    one parsed copy; a different map gets its own, and bad maps are still refused."""
    first = hub.options({"networks": ["eip155:1"], "themeMode": "light"})
    assert hub.options({"networks": ["eip155:1"], "themeMode": "light"}) is first
    other = hub.options({"networks": ["eip155:1"], "themeMode": "dark"})
    assert other is not first and other.themeMode == "dark"
    with pytest.raises(OptionsError):
        hub.options({"themeMode": "purple"})


class _FlakyLeases(Leases):
    """Its first subscription fails (Redis went away); the second one hears an event."""

    def __init__(self) -> None:
        self.attempts = 0
        self.heard = asyncio.Event()

    async def listen(self, handler: Any) -> None:
        self.attempts += 1
        if self.attempts == 1:
            raise ConnectionError("redis went away")
        self.heard.set()
        await asyncio.Event().wait()  # subscribed until cancelled


async def test_listening_for_routed_events_resumes_after_a_lost_connection() -> None:
    """Issue 17: a worker whose pub/sub connection failed subscribes again (else events routed
    to its sessions would be lost until a restart)."""
    store = MemoryStore()
    store.leases = leases = _FlakyLeases()
    the_hub = Hub(config=make_test_config(), secret=b"s", clock=FakeClock(),
                  services=default_services(), analytics=MemorySink(), store=store)
    the_hub.start()
    try:
        await asyncio.wait_for(leases.heard.wait(), 10)
        assert leases.attempts == 2
    finally:
        await the_hub.close()
