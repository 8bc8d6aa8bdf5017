"""Issue 17, idle memory, over a real socket: what an idle connection no longer holds, and an
idle session that dropped its tree answering its next intent as if it never had."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from modalcore.server.wsprotocol import LeanWebSocketProtocol
from modalcore.store.base import NO_BLOBS
from modalcore.store.memory import MemoryStore
from modalcore_testing import make_test_config, start_server


def _connections(server: Any) -> list[Any]:
    return list(server.server.server_state.connections)


async def test_an_accepted_socket_keeps_no_handshake_headers() -> None:
    with start_server() as server:
        async with server.client() as client:
            await client.join()
            await client.quiet(0.2)
            sockets = [c for c in _connections(server) if isinstance(c, LeanWebSocketProtocol)]
            assert len(sockets) == 1
            protocol = sockets[0]
            assert "request" not in protocol.__dict__ and "response" not in protocol.__dict__
            # the scope keeps only what uvicorn reads again (its log lines: client and path)
            assert set(protocol.scope) == {"type", "client", "root_path", "path", "query_string"}
            # and the socket still works both ways
            await client.intent("host", "open", iid="after-trim")
            frames = await client.recv_until(lambda f: f["t"] == "patch")
            assert frames[0]["status"] == "ok"


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


async def _open_on_a_quiet_session(server: Any, log: list[str]) -> list[dict[str, Any]]:
    """Join, let the session settle, forget what was logged so far, then send the host's
    `open` and return the frames up to its host event."""
    async with server.client() as client:
        await client.join()
        await client.quiet(0.3)
        log.clear()
        await client.intent("host", "open", iid="open-1")
        frames: list[dict[str, Any]] = await client.recv_until(lambda f: f["t"] == "host_event")
        return frames


async def test_the_frames_of_one_intent_leave_in_one_write(monkeypatch: Any) -> None:
    """The ack, patch and host event an intent produces are written together (one syscall),
    in order."""
    log: list[str] = []
    real_send, real_flush = LeanWebSocketProtocol.send, LeanWebSocketProtocol.flush

    async def send(self: LeanWebSocketProtocol, message: Any) -> None:
        if message["type"] == "websocket.send":
            log.append("frame")
        await real_send(self, message)

    def flush(self: LeanWebSocketProtocol) -> None:
        log.append("write")
        real_flush(self)

    monkeypatch.setattr(LeanWebSocketProtocol, "send", send)
    monkeypatch.setattr(LeanWebSocketProtocol, "flush", flush)
    with start_server() as server:
        frames = await _open_on_a_quiet_session(server, log)
        assert [f["t"] for f in frames] == ["intent_ack", "patch", "host_event"]
        assert [f["s"] for f in frames] == list(range(frames[0]["s"], frames[0]["s"] + 3))
        # (a later patch, e.g. the directory's wallets, is a write of its own)
        assert log[:4] == ["frame", "frame", "frame", "write"]


async def test_the_frames_are_written_before_the_session_is_saved(monkeypatch: Any) -> None:
    """Coalescing writes must not hold an intent's frames back behind the work that follows
    them in the batch (observers, the save)."""
    log: list[str] = []
    real_flush, real_save = LeanWebSocketProtocol.flush, MemoryStore.save

    def flush(self: LeanWebSocketProtocol) -> None:
        log.append("write")
        real_flush(self)

    async def save(self: MemoryStore, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        log.append("save")
        await real_save(self, session_id, data, now_ms, blobs)

    monkeypatch.setattr(LeanWebSocketProtocol, "flush", flush)
    monkeypatch.setattr(MemoryStore, "save", save)
    with start_server() as server:
        await _open_on_a_quiet_session(server, log)
        server.wait_for(lambda: "save" in log)
        assert log.index("write") < log.index("save")


async def test_an_idle_runner_holds_no_call_sets_context_or_frame_until_used() -> None:
    """Issue 17: an idle session's runner makes its call and effect sets and its service
    context on first use, and its socket's read loop keeps no frame it has handed on; a
    session used afterwards works as before."""
    with start_server() as server:
        async with server.client() as client:
            await client.join()
            await client.quiet(0.2)
            runner = next(iter(server.hub.runners.values()))
            assert runner._calls is None and runner._effects is None and runner._context is None
            await client.intent("host", "open", iid="open-1")
            frames = await client.recv_until(lambda f: f["t"] == "patch")
            assert frames[0]["status"] == "ok"
            assert runner.context.session_id == runner.id  # made when asked for
