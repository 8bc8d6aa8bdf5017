"""A loopback TCP proxy that adds a one-way delay in each direction (behaviour.md "Latency").

Tests and benchmarks put it between the browser and the engine: 50 ms each way is a 100 ms round
trip. Every chunk read is stamped with `now + delay` and written out when that time comes, by a
writer task of its own, so the reader keeps reading meanwhile: the delay shifts the stream in time
without limiting its throughput, and bytes keep their order (one FIFO per direction).

From asyncio code:

    async with DelayProxy(engine_port, delay_ms=50) as proxy:
        url = proxy.http_url

From synchronous code (pytest with Playwright's sync API, `make bench`), in a thread of its own:

    with running_proxy(engine_port, delay_ms=50) as proxy:
        proxy.delay_ms = 0  # may be changed at any time; applies to chunks read from then on

By hand: `python -m modalcore_dev.latency.proxy --target 8700 --port 8701 --delay 50`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator
from types import TracebackType

HOST = "127.0.0.1"
CHUNK = 64 * 1024
# Chunks in flight per direction before the reader waits for the writer (backpressure).
MAX_QUEUED = 4096


class DelayProxy:
    """Listens on `host:port` (port 0: a free one) and forwards each connection to the target.

    `delay_ms` is the one-way delay applied in both directions; `up_ms` (client → target) and
    `down_ms` (target → client) override it per direction.
    """

    def __init__(
        self,
        target_port: int,
        *,
        delay_ms: float = 50.0,
        target_host: str = HOST,
        host: str = HOST,
        port: int = 0,
        up_ms: float | None = None,
        down_ms: float | None = None,
    ) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.host = host
        self._port = port
        self.up_ms = delay_ms if up_ms is None else up_ms
        self.down_ms = delay_ms if down_ms is None else down_ms
        self.connections = 0  # accepted so far
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    # ----- configuration

    @property
    def delay_ms(self) -> float:
        """The one-way delay (the up one when the directions differ)."""
        return self.up_ms

    @delay_ms.setter
    def delay_ms(self, value: float) -> None:
        self.up_ms = self.down_ms = float(value)

    @property
    def rtt_ms(self) -> float:
        return self.up_ms + self.down_ms

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # ----- lifecycle

    async def start(self) -> DelayProxy:
        self._server = await asyncio.start_server(self._accept, self.host, self._port, backlog=256)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> DelayProxy:
        return await self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    # ----- one connection

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:  # always inside the server's connection task
            self._tasks.add(task)
        self._writers.add(client_writer)
        self.connections += 1
        upstream_writer: asyncio.StreamWriter | None = None
        try:
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection(self.target_host, self.target_port)
            except OSError:
                return
            self._writers.add(upstream_writer)
            for writer in (client_writer, upstream_writer):
                _no_delay(writer)
            await asyncio.gather(
                self._pipe(client_reader, upstream_writer, up=True),
                self._pipe(upstream_reader, client_writer, up=False),
            )
        except asyncio.CancelledError:
            pass  # stop(): the connection task ends quietly (asyncio logs a cancelled handler)
        finally:
            for end in (client_writer, upstream_writer):
                if end is not None:
                    self._writers.discard(end)
                    end.transport.abort()
            self._tasks.discard(task)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, up: bool) -> None:
        """Copy one direction: a reader stamps chunks, a writer releases each at its time."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(MAX_QUEUED)

        async def read() -> None:
            data = b""
            try:
                while True:
                    data = await reader.read(CHUNK)
                    delay = (self.up_ms if up else self.down_ms) / 1000
                    await queue.put((loop.time() + delay, data))
                    if not data:
                        return
            except (ConnectionError, OSError):
                await queue.put((loop.time(), b""))

        async def write() -> None:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                try:
                    if not data:  # end of stream: pass the half-close on
                        if writer.can_write_eof() and not writer.is_closing():
                            writer.write_eof()
                        return
                    writer.write(data)
                    await writer.drain()
                except (ConnectionError, OSError):
                    return

        reading = asyncio.create_task(read())
        try:
            await write()
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reading


def _no_delay(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class ThreadedProxy:
    """A `DelayProxy` running on an event loop in a daemon thread (see `running_proxy`)."""

    def __init__(self, proxy: DelayProxy, loop: asyncio.AbstractEventLoop) -> None:
        self.proxy = proxy
        self.loop = loop

    @property
    def delay_ms(self) -> float:
        return self.proxy.delay_ms

    @delay_ms.setter
    def delay_ms(self, value: float) -> None:
        # two float attributes read by the proxy's loop at each chunk: safe to set from here
        self.proxy.delay_ms = value

    @property
    def rtt_ms(self) -> float:
        return self.proxy.rtt_ms

    @property
    def port(self) -> int:
        return self.proxy.port

    @property
    def http_url(self) -> str:
        return self.proxy.http_url

    @property
    def connections(self) -> int:
        return self.proxy.connections


@contextlib.contextmanager
def running_proxy(
    target_port: int, *, delay_ms: float = 50.0, target_host: str = HOST, port: int = 0,
    up_ms: float | None = None, down_ms: float | None = None,
) -> Iterator[ThreadedProxy]:
    """Run a `DelayProxy` in a thread for the duration of the block."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="delay-proxy", daemon=True)
    thread.start()
    proxy = DelayProxy(target_port, delay_ms=delay_ms, target_host=target_host, port=port,
                       up_ms=up_ms, down_ms=down_ms)
    try:
        asyncio.run_coroutine_threadsafe(proxy.start(), loop).result(10)
        yield ThreadedProxy(proxy, loop)
    finally:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(proxy.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Loopback TCP proxy adding a one-way delay each way.")
    parser.add_argument("--target", type=int, required=True, help="the engine's port on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument("--delay", type=float, default=50.0, help="one-way delay in ms (default 50)")
    args = parser.parse_args(argv)

    async def serve() -> None:
        async with DelayProxy(args.target, delay_ms=args.delay, port=args.port) as proxy:
            print(f"{proxy.http_url} → {HOST}:{args.target}, +{proxy.rtt_ms:g} ms round trip", flush=True)
            await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
