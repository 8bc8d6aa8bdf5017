"""Redis that survives a host loss (issue 42): the store finds the primary through Sentinel and
follows a failover, and with `[store] replicas = 1` a save counts as landed only once a replica
has it, so the primary killed with -9 takes no acknowledged change along.

Real parts: Debian's redis-server as a primary, two replicas and three sentinels (quorum 2,
modalcore_testing/sentinel.py), a real `serve` process, the protocol client. The time from the
primary's kill to the state saved on the new primary is printed (`-s`), never asserted."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from modalcore.store.redis import RedisStore, ReplicasBehind
from modalcore.store.redis_sentinel import sentinel_store
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client
from modalcore_testing.sentinel import HOST, SERVICE, SentinelSet, sentinel_set
from tests.server.test_store_outage import (OPERATOR, STEP_S, Worker, _acked_ok, _poll, _resumed,  # noqa: F401
                                            _workers_end, saved_at)

PREFIX = "sentinel:"


@pytest.fixture()
def watched() -> Iterator[SentinelSet]:
    with sentinel_set() as nodes:
        yield nodes


def _saved_on(port: int, session_id: str) -> tuple[str, str] | None:
    """(view, theme mode) the Redis on `port` holds for the session; None when none or unreachable."""
    return saved_at(f"redis://{HOST}:{port}/0", PREFIX, session_id)


async def test_rule_a_save_waits_for_the_replicas_it_is_told_to(watched: SentinelSet) -> None:
    """With replicas following, a save lands on them; with fewer than asked (replicas gone), it
    raises and the caller keeps it (runtime/saves.py retries any failure)."""
    store = RedisStore.from_url(f"redis://{HOST}:{watched.primary.port}/0", prefix=PREFIX, replicas=2)
    try:
        await store.save("s1", b"one", 1)
        assert all(node.client.get(f"{PREFIX}s:s1") == b"one" for node in watched.replicas)
        watched.replicas[1].kill()
        with pytest.raises(ReplicasBehind):
            await store.save("s1", b"two", 2)
    finally:
        await store.close()


async def test_rule_the_store_follows_a_failover_to_the_promoted_replica(watched: SentinelSet) -> None:
    store = sentinel_store(watched.addresses, SERVICE, prefix=PREFIX, replicas=1)
    try:
        await store.save("s1", b"before", 1)
        old = watched.primary_port()
        assert old == watched.primary.port
        watched.primary.kill()
        deadline = time.monotonic() + STEP_S
        while True:  # saves fail while the sentinels elect; the caller retries as it does for any outage
            try:
                await store.save("s1", b"after", 2)
                break
            except Exception:
                assert time.monotonic() < deadline, "the store never reached a new primary"
                await asyncio.sleep(0.1)
        promoted = watched.primary_port()
        assert promoted in {node.port for node in watched.replicas}
        assert await store.load("s1", 3) == b"after"
    finally:
        await store.close()


async def test_rule_a_primary_killed_under_load_loses_no_acknowledged_change(
        watched: SentinelSet, tmp_path: Path) -> None:
    """Visitors keep pressing while the primary dies (kill -9): every intent is acknowledged
    `ok`, the worker keeps and retries the saves the election refuses, and once the replica is
    promoted it holds each session's last state; a worker started afterwards resumes them."""
    config = tmp_path / "engine.json"
    config.write_text(json.dumps({
        "secret": TEST_SECRET, "operator_token": OPERATOR,
        "store": {"kind": "redis", "prefix": PREFIX, "sentinels": watched.addresses,
                  "sentinel_service": SERVICE, "replicas": 1, "shutdown_wait_s": 60},
        "projects": {TEST_PROJECT: {"name": "Sentinel", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": "siwx.db", "key_file": "engine.key"},
    }))
    worker = Worker(tmp_path, config)
    clients: list[Client] = []
    async with Client.open(worker.url) as first, Client.open(worker.url) as second:
        for client in (first, second):
            await client.join()
            await client.intent("host", "open", iid="open")
            await _acked_ok(client, "open")
            clients.append(client)
        primary = watched.primary.port
        assert await _poll(lambda: all(_saved_on(primary, c.session) for c in clients))
        killed = time.monotonic()
        watched.primary.kill()
        for client in clients:  # pressed while Redis has no primary
            await client.intent("connect/all-wallets", "press", iid="all")
            await _acked_ok(client, "all")
            await client.intent("host", "set_theme_mode", {"mode": "light"}, iid="theme")
            await _acked_ok(client, "theme")
        replicas = {node.port for node in watched.replicas}
        assert await _poll(lambda: watched.primary_port() in replicas), "no failover"
        promoted = watched.primary_port()
        assert promoted is not None
        assert await _poll(lambda: all(_saved_on(promoted, c.session) == ("AllWallets", "light")
                                       for c in clients)), worker.output()
        print(f"\nprimary killed -> both sessions saved on the promoted replica: "
              f"{(time.monotonic() - killed) * 1000:.0f} ms")
        status, _ = worker.health()
        assert await _poll(lambda: worker.health()[0] == 200), (status, worker.output())
    worker.stop(signal.SIGKILL)
    assert "Traceback" not in worker.output()
    again = Worker(tmp_path, config)
    for client in clients:
        assert await _resumed(again, client) == ("AllWallets", "light")
