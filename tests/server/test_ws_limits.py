"""What one client can make the engine hold or send, over a real socket: `resync` answers,
sessions kept for sockets that never joined or never did anything, sessions per address."""

from __future__ import annotations

import contextlib
from typing import Any

from modalcore.server.endpoint import CLOSE_TOO_MANY_SESSIONS
from modalcore_testing import Client, RunningServer, make_test_config, start_server
from modalcore.wire.codec import encode

RESYNCS = 2000


def snapshot_bytes(frames: list[dict[str, Any]]) -> int:
    return sum(len(encode(f)) for f in frames if f["t"] == "snapshot")


async def test_a_resync_flood_gets_at_most_one_snapshot_per_tree_version(
    running_server: RunningServer,
) -> None:
    async with running_server.client() as client:
        welcome = await client.join()
        one_snapshot = snapshot_bytes(welcome)
        for _ in range(RESYNCS):
            await client.send({"t": "resync", "v": 0})
        frames = await client.quiet(0.5)
        # the welcome's snapshot is of the current version already: nothing more to send
        assert snapshot_bytes(frames) == 0
        # once the tree changed, a resync gets one snapshot, and a flood still only that one
        await client.intent("host", "open")
        await client.quiet(0.5)  # the Connect view's wallets arrive in a later patch
        for _ in range(RESYNCS):
            await client.send({"t": "resync", "v": 0})
        frames = await client.quiet(0.5)
        snapshots = [f for f in frames if f["t"] == "snapshot"]
        assert len(snapshots) == 1
        assert snapshots[0]["tree"]["p"]["open"] is True
        assert snapshot_bytes(frames) < 3 * one_snapshot  # not RESYNCS of them


async def test_sockets_that_never_join_keep_nothing() -> None:
    config = make_test_config()
    with start_server(config) as server:
        async with server.client():
            pass  # connected, sent nothing
        async with server.client() as garbage:
            await garbage.send_raw(b"\xc1\xc1")
            assert await garbage.closed() == 4003
        async with server.client() as intent_first:
            await intent_first.intent("host", "open")
            assert await intent_first.closed() == 4003
        async with server.client() as wrong_project:
            assert (await wrong_project.join(project="other"))[0]["code"] == "no_project"
        async with server.client() as bad_options:
            frames = await bad_options.join(opts={"networks": "not a list"})
            assert frames[0]["t"] == "goodbye"
        async with server.client(origin="https://evil.example") as bad_origin:
            assert await bad_origin.closed() == 4001
        assert len(server.hub) == 0
        assert await server.hub.store.count() == 0


async def test_a_session_that_never_did_anything_is_not_stored() -> None:
    with start_server(make_test_config()) as server:
        async with server.client() as idle:
            await idle.join()
            await idle.send({"t": "resync", "v": 0})
            await idle.send({"t": "ack"})
            await idle.intent("no-such-node", "press")  # refused: not a valid intent
            await idle.quiet(0.3)
        assert len(server.hub) == 1  # in memory, for UNUSED_SESSION_EVICT_MS (test_hub.py)
        assert await server.hub.store.count() == 0
        async with server.client() as used:
            await used.join()
            await used.intent("host", "open")
            await used.recv_until(lambda f: f["t"] == "intent_ack")
            server.wait_for(lambda: used.session in server.hub.runners)
        assert await server.hub.store.load(used.session, server.hub.clock.now_ms()) is not None


async def test_closed_sockets_stop_counting_toward_the_per_address_cap_at_once() -> None:
    """Issue 27 item 6: 64 sockets from one address, used and closed, do not hold the address's
    cap for the ~10 minutes their sessions stay in memory; 64 live ones still refuse the 65th."""
    with start_server(make_test_config()) as server:
        cap = server.hub.config.max_sessions_per_address
        assert cap == 64
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(cap):
                client = await stack.enter_async_context(server.client())
                assert (await client.join())[0]["t"] == "joined"
                await client.intent("host", "open")  # used: kept in memory for idle_evict_s
            async with server.client() as one_more:
                frames = await one_more.join()
                assert (frames[0]["t"], frames[0]["code"]) == ("error", "too_many_sessions")
                assert await one_more.closed() == CLOSE_TOO_MANY_SESSIONS
        server.wait_for(lambda: server.hub.addresses.live_sockets("127.0.0.1") == 0)
        assert len(server.hub) == cap  # the closed sockets' sessions are still in memory
        async with server.client() as newcomer:
            assert (await newcomer.join())[0]["t"] == "joined"
            assert await newcomer.quiet(0.2) is not None and server.hub.addresses.live_sockets("127.0.0.1") == 1


async def test_sessions_per_client_address_are_capped() -> None:
    with start_server(make_test_config(max_sessions_per_address=3)) as server:
        async with contextlib.AsyncExitStack() as stack:
            joined = [await stack.enter_async_context(server.client()) for _ in range(3)]
            for client in joined:
                assert (await client.join())[0]["t"] == "joined"
            async with server.client() as one_more:
                frames = await one_more.join()
                assert (frames[0]["t"], frames[0]["code"]) == ("error", "too_many_sessions")
                assert await one_more.closed() == CLOSE_TOO_MANY_SESSIONS == 4005
            # a live session of this address still resumes (it adds nothing)
            first = joined[0]
            async with Client.open(server.ws_url(), seq=first.seq) as again:
                frames = await again.join(resume=first.resume)
                assert frames[0]["resumed"] is True
                # the host leaves: its session ends, room for a new one
                await again.send({"t": "leave"})
                assert await again.closed() == 1000
            server.wait_for(lambda: len(server.hub) == 2)
            async with server.client() as newcomer:
                assert (await newcomer.join())[0]["t"] == "joined"
