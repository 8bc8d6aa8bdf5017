"""Resume: exactly the missed frames from the ring, never an intent twice, restarts via SQLite."""

from __future__ import annotations

import time
from pathlib import Path

from modalcore.engine.session import Session
from modalcore_testing import Client, RunningServer, make_test_config, start_server


def settled(session: Session) -> None:
    """Wait until the session sends nothing more: the intent's answer, and the frames of the
    service calls it started (the directory), have all been numbered."""
    seen = -1
    while session.out_seq != seen:
        seen = session.out_seq
        time.sleep(0.1)


def seqs(frames: list[dict[str, object]]) -> list[object]:
    return [frame["s"] for frame in frames]


async def test_rejoin_gets_exactly_the_missed_frames(running_server: RunningServer) -> None:
    async with running_server.client() as first:
        welcome = await first.join()
        welcome_last = first.last
        sent = await first.intent("host", "open", iid="mid-flow")
        session = running_server.hub.runners[first.session].session
        running_server.wait_for(lambda: session.in_seq >= sent["s"])
        settled(session)
    # the socket dropped before the client read (or acked) the answer
    missed = list(range(welcome_last + 1, session.out_seq + 1))
    assert len(missed) >= 3
    async with Client.open(running_server.ws_url(), seq=first.seq) as again:
        frames = await again.join(resume=first.resume, last=welcome_last)
    assert frames[0]["t"] == "joined"
    assert frames[0]["resumed"] is True and frames[0]["session"] == first.session
    assert frames[0]["resume"] != ""
    assert seqs(frames[1:]) == missed
    assert [f["t"] for f in frames[1:3]] == ["intent_ack", "patch"]
    assert frames[1]["iid"] == "mid-flow"
    assert frames[2]["ops"] == [[3, "modal", {"open": True}]]
    assert welcome[0]["session"] == first.session


async def test_rejoin_when_nothing_was_missed_or_the_ring_moved_on(
    running_server: RunningServer,
) -> None:
    async with running_server.client() as first:
        await first.join()
        await first.intent("host", "open")
        await first.recv_until(lambda f: f["t"] == "host_event")
        await first.quiet(0.1)
        await first.send({"t": "ack", "s": 0})  # acknowledges everything: the ring empties
        session = running_server.hub.runners[first.session].session
        running_server.wait_for(lambda: session.acked == session.out_seq == first.last)
    async with Client.open(running_server.ws_url(), seq=first.seq) as again:
        frames = await again.join(resume=first.resume, last=first.last)
    assert [f["t"] for f in frames] == ["joined"]
    version = session.version  # 1 snapshot, 2 patch (open), 3 patch (the directory's wallets)
    async with Client.open(running_server.ws_url(), seq=first.seq) as late:
        frames = await late.join(resume=first.resume, last=3)
    assert [f["t"] for f in frames[:3]] == ["joined", "theme", "snapshot"]
    assert frames[2]["tree"]["p"]["open"] is True
    assert frames[2]["v"] == version + 1  # versions continue with this snapshot


async def test_retransmitted_intent_after_reconnect_is_not_applied_twice(
    running_server: RunningServer,
) -> None:
    async with running_server.client() as first:
        await first.join()
        sent = await first.intent("host", "open", iid="once")
        session = running_server.hub.runners[first.session].session
        running_server.wait_for(lambda: session.in_seq >= sent["s"])
    async with Client.open(running_server.ws_url(), seq=first.seq) as again:
        await again.join(resume=first.resume, last=session.out_seq)
        await again.send({**sent, "a": session.out_seq})  # the same frame, retransmitted
        frames = await again.quiet(0.3)
    assert [(f["t"], f.get("iid"), f.get("status")) for f in frames] == [
        ("intent_ack", "once", "ok")]


async def test_newer_socket_replaces_the_older(running_server: RunningServer) -> None:
    async with running_server.client() as first:
        await first.join()
        async with Client.open(running_server.ws_url(), seq=first.seq) as second:
            frames = await second.join(resume=first.resume, last=first.last)
            assert frames[0]["resumed"] is True
            assert await first.closed() == 4004
            await second.intent("host", "open")
            assert (await second.recv())["status"] == "ok"


async def test_session_survives_an_engine_restart_with_sqlite(tmp_path: Path) -> None:
    config = make_test_config(store={"kind": "sqlite", "path": str(tmp_path / "sessions.db")})
    with start_server(config) as server:
        async with server.client() as client:
            await client.join()
            await client.intent("host", "open")
            await client.recv_until(lambda f: f["t"] == "host_event")
            await client.quiet(0.3)  # the Connect view's directory wallets arrive in a later patch
            runner = server.hub.runners[client.session]
            tree = runner.session.tree.to_wire()
            version = runner.session.version
    # the process is gone: the ring with it
    with start_server(config) as server:
        assert len(server.hub) == 0
        async with Client.open(server.ws_url(), seq=client.seq) as again:
            frames = await again.join(resume=client.resume, last=5)
        assert frames[0]["session"] == client.session and frames[0]["resumed"] is True
        snapshot = next(f for f in frames if f["t"] == "snapshot")
        assert snapshot["tree"] == tree
        assert snapshot["tree"]["p"]["view"] == "Connect" and snapshot["tree"]["p"]["open"] is True
        assert snapshot["v"] == version + 1
        assert len(server.hub) == 1
