"""Issue 17, idle memory, over a real socket: what an idle connection no longer holds, and an
idle session that dropped its tree answering its next intent as if it never had."""

from __future__ import annotations

import gc
from typing import Any

from modalcore.server.socket import Socket
from modalcore.wire.frames import Join
from modalcore_testing import make_test_config, start_server


async def test_the_socket_keeps_only_what_it_reads_of_the_handshake() -> None:
    """The endpoint copies the project, origin and client address off the scope and keeps no
    reference to it; uvicorn's scope itself is never edited (issue 37: a release that read one
    more key answered every handshake with HTTP 500)."""
    scope: dict[str, Any] = {"type": "websocket", "path": "/ws", "raw_path": b"/ws",
                             "query_string": b"project=p1", "client": ("127.0.0.1", 5),
                             "headers": [(b"origin", b"https://app.example")]}
    before = dict(scope)

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: Any) -> None:
        return None

    socket = Socket(scope, receive, send)
    assert (socket.project, socket.origin, socket.client_host) == ("p1", "https://app.example", "127.0.0.1")
    assert scope == before
    assert not any(value is scope for value in (getattr(socket, n) for n in Socket.__slots__))


async def test_an_idle_session_drops_its_tree_and_patches_the_next_intent_as_before() -> None:
    with start_server(make_test_config(idle_compact_s=0.1)) as server:
        async with server.client() as client:
            await client.join()
            await client.quiet(0.2)
            session = next(iter(server.hub.runners.values())).session
            server.wait_for(lambda: session.compacted)
            await client.intent("host", "open", iid="open-1")
            frames = await client.recv_until(lambda f: f["t"] == "patch")
            assert frames[0]["status"] == "ok"
            # the same patch a session that never dropped its tree sends (test_ws_intents)
            assert frames[1]["ops"] == [[3, "modal", {"open": True}]]
            assert (frames[1]["base"], frames[1]["v"]) == (1, 2)
            await client.intent("no/such/node", "press", iid="bad")
            ack = (await client.recv_until(lambda f: f["t"] == "intent_ack"))[-1]
            assert ack["status"] in ("invalid", "stale")  # refused: the index drawn again


async def test_an_idle_runner_holds_no_call_sets_context_or_frame_until_used() -> None:
    """Issue 17: an idle session's runner makes its call and effect sets and its service
    context on first use, and its socket's read loop keeps no frame it has handed on; a
    session used afterwards works as before."""
    with start_server() as server:
        async with server.client() as client:
            await client.join()
            await client.quiet(0.2)
            runner = next(iter(server.hub.runners.values()))
            assert runner.commands.calls is None and runner.commands.effects is None and runner.commands._context is None
            await client.intent("host", "open", iid="open-1")
            frames = await client.recv_until(lambda f: f["t"] == "patch")
            assert frames[0]["status"] == "ok"
            assert runner.commands.context.session_id == runner.id  # made when asked for


async def test_an_idle_socket_holds_no_join_frame_past_its_handshake() -> None:
    """Idle figure (the load tool's RSS per session): once its session is running, a socket's
    task holds neither the parsed join nor the options map it was decoded into (~1.8 KiB per
    idle socket when the endpoint's frame kept them for the socket's life)."""
    with start_server() as server:
        async with server.client() as first, server.client() as second:
            await first.join()
            await second.join()
            await first.quiet(0.2)
            assert len(server.hub.runners) == 2
            gc.collect()
            assert [o for o in gc.get_objects() if isinstance(o, Join)] == []
