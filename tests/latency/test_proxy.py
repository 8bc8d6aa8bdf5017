"""The delay proxy: a round trip costs the configured delay, bytes keep their order, a stream is
shifted in time rather than slowed down, half-closes pass through, the engine works behind it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from modalcore_dev.latency import DelayProxy, running_proxy
from modalcore_testing import TEST_ORIGIN, Client, start_server

HOST = "127.0.0.1"


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.write_eof()
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def echo_server() -> AsyncIterator[int]:
    server = await asyncio.start_server(_echo, HOST, 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def in_thread(test: Callable[[int], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Run `test(echo_port)` with `asyncio.run` in a thread of its own: these tests then pass
    whatever holds the main thread's event loop (e.g. a session-wide sync Playwright)."""

    @functools.wraps(test)
    def sync_test() -> None:
        async def main() -> None:
            async with echo_server() as port:
                await asyncio.wait_for(test(port), 30)

        errors: list[BaseException] = []

        def target() -> None:
            try:
                asyncio.run(main())
            except BaseException as error:  # re-raised in the test's thread
                errors.append(error)

        thread = threading.Thread(target=target)
        thread.start()
        thread.join(60)
        assert not thread.is_alive(), "the test did not finish"
        if errors:
            raise errors[0]

    del sync_test.__wrapped__  # pytest must see no arguments
    return sync_test


async def _round_trip(port: int, payload: bytes = b"ping") -> float:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        start = time.perf_counter()
        writer.write(payload)
        await writer.drain()
        await reader.readexactly(len(payload))
        return (time.perf_counter() - start) * 1000
    finally:
        writer.close()


@in_thread
async def test_a_round_trip_costs_both_one_way_delays(echo_port: int) -> None:
    async with DelayProxy(echo_port, delay_ms=50) as proxy:
        assert proxy.rtt_ms == 100
        elapsed = await _round_trip(proxy.port)
    assert elapsed >= 99, elapsed  # never earlier than both delays (no upper bound: speed is benched)


@in_thread
async def test_each_direction_has_its_own_delay(echo_port: int) -> None:
    async with DelayProxy(echo_port, up_ms=10, down_ms=60) as proxy:
        elapsed = await _round_trip(proxy.port)
    assert elapsed >= 69, elapsed


@in_thread
async def test_no_delay_is_plain_forwarding(echo_port: int) -> None:
    async with DelayProxy(echo_port, delay_ms=0) as proxy:
        assert proxy.rtt_ms == 0
        await _round_trip(proxy.port, b"plain")  # the echo came back whole through the proxy
        assert proxy.connections == 1


@in_thread
async def test_the_delay_can_change_while_running(echo_port: int) -> None:
    async with DelayProxy(echo_port, delay_ms=0) as proxy:
        assert await _round_trip(proxy.port) < 60
        proxy.delay_ms = 40
        assert await _round_trip(proxy.port) >= 79


@in_thread
async def test_bytes_keep_their_order_across_many_chunks(echo_port: int) -> None:
    blob = os.urandom(3 * 1024 * 1024)
    async with DelayProxy(echo_port, delay_ms=5) as proxy:
        reader, writer = await asyncio.open_connection(HOST, proxy.port)

        async def send() -> None:
            for start in range(0, len(blob), 7919):  # odd-sized writes
                writer.write(blob[start:start + 7919])
                await writer.drain()
            writer.write_eof()

        sending = asyncio.create_task(send())
        received = await reader.read(-1)  # until the echo's EOF comes back through the proxy
        await sending
        writer.close()
    assert received == blob


@in_thread
async def test_a_stream_is_shifted_in_time_not_slowed_down(echo_port: int) -> None:
    """20 messages 10 ms apart through 2 × 50 ms: each arrives ~100 ms after it left (a proxy that
    slept between chunks one after another would make the last one arrive ~2 s late)."""
    async with DelayProxy(echo_port, delay_ms=50) as proxy:
        reader, writer = await asyncio.open_connection(HOST, proxy.port)
        sent: list[float] = []
        lags: list[float] = []

        async def receive() -> None:
            for _ in range(20):
                await reader.readexactly(8)
                lags.append((time.perf_counter() - sent[len(lags)]) * 1000)

        receiving = asyncio.create_task(receive())
        for index in range(20):
            sent.append(time.perf_counter())
            writer.write(index.to_bytes(8, "big"))
            await writer.drain()
            await asyncio.sleep(0.01)
        await asyncio.wait_for(receiving, 5)
        writer.close()
    assert min(lags) >= 99
    # Pipelined, not serial: the last message is not held behind 19 earlier delays. The bound
    # is the serial schedule itself (20 × 100 ms), not a speed figure.
    assert lags[-1] < 20 * 100, lags


@in_thread
async def test_a_closed_target_closes_the_client(echo_port: int) -> None:
    async with DelayProxy(echo_port, delay_ms=0) as proxy:
        reader, writer = await asyncio.open_connection(HOST, proxy.port)
        writer.write_eof()  # the echo answers EOF with EOF and closes
        assert await asyncio.wait_for(reader.read(), 2) == b""
        writer.close()


@in_thread
async def test_nothing_listening_behind_it_closes_the_client(_: int) -> None:
    async with DelayProxy(1, delay_ms=0) as proxy:  # port 1: refused
        reader, writer = await asyncio.open_connection(HOST, proxy.port)
        assert await asyncio.wait_for(reader.read(), 2) == b""
        writer.close()


@in_thread
async def test_stop_ends_open_connections(echo_port: int) -> None:
    proxy = await DelayProxy(echo_port, delay_ms=0).start()
    reader, writer = await asyncio.open_connection(HOST, proxy.port)
    writer.write(b"x")
    assert await reader.readexactly(1) == b"x"
    await asyncio.wait_for(proxy.stop(), 2)
    assert await asyncio.wait_for(reader.read(), 2) == b""
    writer.close()


@in_thread
async def test_the_engine_speaks_through_it_at_100_ms(_: int) -> None:
    """A websocket session through the proxy in a thread (as the browser tests use it)."""
    with start_server() as server, running_proxy(server.port, delay_ms=50) as proxy:
        url = f"ws://{HOST}:{proxy.port}/ws?project=test"
        async with Client.open(url, origin=TEST_ORIGIN) as client:
            frames = await client.join()
            assert frames[0]["t"] == "joined"
            assert any(frame["t"] == "snapshot" for frame in frames)
            start = time.perf_counter()
            await client.intent("host", "open")
            await client.recv_until(lambda frame: frame["t"] == "intent_ack")
            assert (time.perf_counter() - start) * 1000 >= 99
        assert proxy.connections == 1
