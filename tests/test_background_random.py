"""Rule: the keepalive pings of a server running in a background thread (uvicorn with the
engine's websocket protocol) and of a websockets client leave the global `random` alone, so a
Hypothesis test running meanwhile never sees its state move (tests/background_random.py)."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from uvicorn.protocols.websockets import websockets_sansio_impl
from websockets.asyncio.client import connect

from modalcore.netports import free_port
from modalcore.server.app import uvicorn_options

PING_S = 0.02
GUARD_S = 30.0  # only against a hang


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for text in websocket.iter_text():
        await websocket.send_text(text)


@contextmanager
def pinging_server() -> Iterator[str]:
    """uvicorn in a thread, as the e2e engine runs, pinging every socket every PING_S."""
    port = free_port()
    config = uvicorn.Config(Starlette(routes=[WebSocketRoute("/ws", echo)]), host="127.0.0.1", port=port,
                            log_level="warning", lifespan="off", ws_ping_interval=PING_S, ws_ping_timeout=5.0,
                            **uvicorn_options())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + GUARD_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        server.should_exit = True
        thread.join(GUARD_S)


class Bits(Protocol):
    def getrandbits(self, k: int, /) -> int: ...


class CountingRandom:
    """Counts the ping payloads the server draws, from whatever generator it was given."""

    def __init__(self, inner: Bits) -> None:
        self.inner = inner
        self.draws = 0

    def getrandbits(self, k: int) -> int:
        self.draws += 1
        return self.inner.getrandbits(k)


def test_keepalive_pings_in_a_server_thread_and_a_client_leave_the_global_random_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    server_random = CountingRandom(getattr(websockets_sansio_impl, "random"))
    monkeypatch.setattr(websockets_sansio_impl, "random", server_random)
    state = random.getstate()

    async def talk(url: str) -> float:
        async with connect(url, ping_interval=PING_S) as ws:
            deadline = time.monotonic() + GUARD_S
            while ws.latency == 0 or server_random.draws < 3:  # pings both ways, answered
                assert time.monotonic() < deadline, "no keepalive pings"
                await asyncio.sleep(PING_S)
            await ws.send("still here")
            assert await ws.recv() == "still here"
            return ws.latency

    with pinging_server() as url:
        assert asyncio.run(talk(url)) > 0
    assert server_random.draws >= 3
    assert random.getstate() == state
