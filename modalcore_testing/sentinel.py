"""A Redis primary, two replicas and three sentinels watching them (Debian's redis-server, run as
`redis-server <conf> --sentinel`), each on a free loopback port: what a host loss looks like
to the engine's store when Redis is deployed to survive one (docs/operators/several-hosts.md)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from redis import Redis

from modalcore.netports import free_port

HOST = "127.0.0.1"
SERVICE = "modalcore"
DOWN_AFTER_MS = 1000  # a primary silent this long is down for a sentinel
FAILOVER_TIMEOUT_MS = 5000
START_S = 30.0


class RedisNode:
    """One redis-server (primary, replica or sentinel) started from its own config file."""

    def __init__(self, folder: Path, name: str, lines: list[str], *, sentinel: bool = False) -> None:
        self.port = free_port()
        self.conf = folder / f"{name}.conf"
        self.conf.write_text("\n".join([f"port {self.port}", f"bind {HOST}", f"dir {folder}",
                                        "save \"\"", "appendonly no", *lines]) + "\n")
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is missing: run `make redis`")
        args = [binary, str(self.conf)] + (["--sentinel"] if sentinel else [])
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        env={**os.environ})
        self.client = Redis(host=HOST, port=self.port, socket_timeout=2)
        try:
            _until(self._pings, f"{name} on {self.port} did not start")
        except BaseException:
            self.stop()
            raise

    def _pings(self) -> bool:
        try:
            return bool(self.client.ping())
        except Exception:
            return False

    def kill(self) -> None:
        """kill -9: a host lost, nothing flushed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.client.close()


class SentinelSet:
    """A primary, two replicas of it and three sentinels (quorum 2): after the primary is lost,
    one replica is promoted and the other follows it, so a save can still reach a replica."""

    def __init__(self, folder: Path) -> None:
        self.nodes: list[RedisNode] = []  # every one started, ended by `stop` whatever happens
        try:
            self.primary = self._start(folder, "primary", [])
            self.replicas = [self._start(folder, f"replica{i}", [f"replicaof {HOST} {self.primary.port}"])
                             for i in range(2)]
            self.sentinels = [
                self._start(folder, f"sentinel{i}", [
                    f"sentinel monitor {SERVICE} {HOST} {self.primary.port} 2",
                    f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}",
                    f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}",
                    f"sentinel parallel-syncs {SERVICE} 1"], sentinel=True)
                for i in range(3)]
            _until(self._replica_in_sync, "the replica never synced with the primary")
            _until(self._sentinels_see_all, "the sentinels never saw the replica and each other")
        except BaseException:
            self.stop()
            raise

    def _start(self, folder: Path, name: str, lines: list[str], *, sentinel: bool = False) -> RedisNode:
        node = RedisNode(folder, name, lines, sentinel=sentinel)
        self.nodes.append(node)
        return node

    @property
    def addresses(self) -> list[str]:
        return [f"{HOST}:{node.port}" for node in self.sentinels]

    def primary_port(self) -> int | None:
        """The primary's port as the live sentinels name it now (None while they disagree)."""
        ports = set()
        for node in self.sentinels:
            if node.process.poll() is not None:
                continue
            try:
                address = node.client.sentinel_get_master_addr_by_name(SERVICE)
            except Exception:
                return None
            if not isinstance(address, (list, tuple)) or len(address) != 2:
                return None
            ports.add(int(address[1]))
        return ports.pop() if len(ports) == 1 else None

    def node_on(self, port: int) -> RedisNode:
        return next(node for node in (self.primary, *self.replicas) if node.port == port)

    def _replica_in_sync(self) -> bool:
        return all(node.client.info("replication").get("master_link_status") == "up"
                   for node in self.replicas)

    def _sentinels_see_all(self) -> bool:
        for node in self.sentinels:
            master = node.client.sentinel_master(SERVICE)
            if not isinstance(master, dict):
                return False
            replicas, others = master.get("num-slaves", 0), master.get("num-other-sentinels", 0)
            if not isinstance(replicas, int) or not isinstance(others, int) or replicas < 2 or others < 2:
                return False
        return True

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.stop()


def _until(done: Callable[[], bool], message: str) -> None:
    deadline = time.monotonic() + START_S
    while True:
        try:
            if done():
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(message)
        time.sleep(0.05)


@contextlib.contextmanager
def sentinel_set() -> Iterator[SentinelSet]:
    with tempfile.TemporaryDirectory(prefix="modalcore-sentinel-") as folder:
        watched = SentinelSet(Path(folder))
        try:
            yield watched
        finally:
            watched.stop()
