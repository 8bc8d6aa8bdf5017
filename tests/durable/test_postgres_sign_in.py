"""Sign-in nonces and sessions, and the engine's own names, on the shared PostgreSQL (issue 42):
a nonce issued on one host is consumed once whichever hosts race for it, a sign-in session made
on one host is found (and revoked) from another, a name taken on one host is taken on all, and
`db copy` moves a host's siwx.db and names.db with its embedded.db."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Iterator
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest

from modalcore.__main__ import main
from modalcore.durable.postgres import PostgresDb
from modalcore.durable.schema import upgrade
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.services.backend.name_registry import NameRegistry
from modalcore.siwx.backend.store import DurableSiwxStore, NonceStatus, SiwxSession

NOW = 1_700_000_000_000


@pytest.fixture
def hosts(db_url: str) -> Iterator[tuple[PostgresDb, PostgresDb]]:
    a, b = PostgresDb(db_url), PostgresDb(db_url)
    yield a, b
    a.close()
    b.close()


def _session(sid: str) -> SiwxSession:
    return SiwxSession(id=sid, address="0xabc", chain_id=1, domain="app.example", message="m", signature="0x1",
                       data={"k": 1}, cacao={"h": {"t": "caip122"}}, issued_at=NOW, expires_at=NOW + 60_000,
                       created_at=NOW)


async def test_a_sign_in_session_made_on_one_host_is_found_and_revoked_from_another(
        hosts: tuple[PostgresDb, PostgresDb]) -> None:
    a, b = DurableSiwxStore(hosts[0]), DurableSiwxStore(hosts[1])
    await a.add_session(_session("s1"))
    assert await b.get_session("s1") == _session("s1")
    assert [s.id for s in await b.sessions_for("0xABC", "app.example", 1, NOW)] == ["s1"]
    assert await b.revoke_session("s1")
    assert await a.sessions_for("0xabc", None, None, NOW) == []


async def test_a_nonce_issued_on_one_host_is_checked_on_another_and_bounded_per_session(
        hosts: tuple[PostgresDb, PostgresDb]) -> None:
    a, b = DurableSiwxStore(hosts[0]), DurableSiwxStore(hosts[1])
    nonces = [await a.issue_nonce("engine-session", NOW + n) for n in range(12)]
    assert await b.check_nonce(nonces[-1], "engine-session", NOW + 20) == NonceStatus.OK
    assert await b.check_nonce(nonces[0], "engine-session", NOW + 20) == NonceStatus.UNKNOWN  # dropped
    assert await b.consume_nonce(nonces[-1], "engine-session", NOW + 21) == NonceStatus.OK
    assert await a.consume_nonce(nonces[-1], "engine-session", NOW + 22) == NonceStatus.USED


def _consume(url: str, barrier: Barrier, nonce: str, answers: Any) -> None:
    db = PostgresDb(url)
    try:
        store = DurableSiwxStore(db)
        barrier.wait()
        answers.put(asyncio.run(store.consume_nonce(nonce, "engine-session", NOW + 5)).value)
    finally:
        db.close()


def test_rule_two_hosts_consuming_one_nonce_exactly_one_succeeds(db_url: str) -> None:
    context = multiprocessing.get_context("fork")
    for _ in range(3):
        setup = PostgresDb(db_url)
        nonce = asyncio.run(DurableSiwxStore(setup).issue_nonce("engine-session", NOW))
        setup.close()
        barrier, answers = context.Barrier(2), context.Queue()
        racers = [context.Process(target=_consume, args=(db_url, barrier, nonce, answers)) for _ in range(2)]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)
        assert sorted(answers.get(timeout=5) for _ in racers) == ["ok", "used"]


def test_a_name_taken_on_one_host_is_taken_on_all(hosts: tuple[PostgresDb, PostgresDb]) -> None:
    a, b = NameRegistry(hosts[0]), NameRegistry(hosts[1])
    hosts[0].execute("INSERT INTO names (name, address, registered_at) VALUES (?, ?, ?)",
                     ("alice.reown.id", "0x" + "ab" * 20, NOW))
    assert not b.available("alice")
    assert b.name_of("0x" + "ab" * 20) == "alice.reown.id" == a.names()[0].name


def test_rule_db_copy_moves_siwx_and_names_files_with_the_embedded_one(db_url: str, tmp_path: Path) -> None:
    embedded, siwx, names = tmp_path / "embedded.db", tmp_path / "siwx.db", tmp_path / "names.db"
    KeyVault(embedded, MasterKey(bytes(32))).get_or_create(Identity("email", "a@example.com"), 1)
    store = DurableSiwxStore(siwx)
    asyncio.run(store.add_session(_session("s1")))
    nonce = asyncio.run(store.issue_nonce("engine-session", NOW))
    store.close()
    registry = NameRegistry(names)
    registry._db.execute("INSERT INTO names (name, address, registered_at) VALUES (?, ?, ?)",
                         ("bob.reown.id", "0x" + "cd" * 20, NOW))
    registry.close()
    assert main(["db", "copy", "--url", db_url, "--from", str(embedded), "--siwx-from", str(siwx),
                 "--names-from", str(names)]) == 0
    db = PostgresDb(db_url)
    try:
        copied = DurableSiwxStore(db)
        assert asyncio.run(copied.get_session("s1")) == _session("s1")
        assert asyncio.run(copied.consume_nonce(nonce, "engine-session", NOW + 1)) == NonceStatus.OK
        asyncio.run(copied.issue_nonce("engine-session", NOW + 2))  # the nonce ids go on after the copied ones
        assert NameRegistry(db).address_of("bob.reown.id") is not None
    finally:
        db.close()
