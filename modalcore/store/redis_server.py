"""A throwaway `redis-server` (Debian's package) on a free loopback port, for tests and the load
tool: no persistence (`--save '' --appendonly no`) unless asked, stopped when the block ends."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

from ..netports import free_port

HOST = "127.0.0.1"
START_TIMEOUT_S = 10.0


class RedisMissing(RuntimeError):
    """redis-server is not installed (`make redis` installs it)."""


def _ping(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """A redis-server on one port that can be stopped and started again on that same port (a
    store outage, issue 27): `url` stays valid across restarts. With `persist` its data survives
    a stop (an append-only file in `folder`, as a production Redis keeps it)."""

    def __init__(self, folder: str, port: int | None = None, *, persist: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisMissing("redis-server is missing: run `make redis`")
        self.binary = binary
        self.folder = folder
        self.port = port if port is not None else free_port()
        self.persist = persist
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly",
             "yes" if self.persist else "no", "--appendfsync", "always", "--dir", self.folder,
             "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _ping(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def redis_process(*, persist: bool = False) -> Iterator[RedisProcess]:
    """A started RedisProcess, stopped when the block ends."""
    with tempfile.TemporaryDirectory(prefix="modalcore-redis-") as folder:
        server = RedisProcess(folder, persist=persist)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Run one; yields its URL (redis://127.0.0.1:PORT/0)."""
    with redis_process() as server:
        yield server.url
