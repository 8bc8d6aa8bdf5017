"""A throwaway `redis-server` (Debian's package) on a free loopback port, for tests and the load
tool: no persistence (`--save '' --appendonly no`), stopped when the block ends."""

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


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Run one; yields its URL (redis://127.0.0.1:PORT/0)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RedisMissing("redis-server is missing: run `make redis`")
    with tempfile.TemporaryDirectory(prefix="modalcore-redis-") as folder:
        port = free_port()
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no",
             "--dir", folder, "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _ping(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
            yield f"redis://{HOST}:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
