"""Issue 31, item 2: the audit log is anchored by chain heads the engine signs, so `audit verify`
sees a log cut short or written again with fresh hashes, in every store kind (a SQLite file, a
real redis-server); entries written before heads were signed still verify, as unanchored."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import msgpack
import pytest
import redis
from eth_account import Account
from eth_account.signers.local import LocalAccount

from modalcore.__main__ import main
from modalcore.ledger.chain import GENESIS, StoredEntry, make_entry
from modalcore.audit.heads import Head, SignedHeads, make_body, sign
from modalcore.audit.signer import HeadSigner
from modalcore.audit.verify import Problem, verify_store
from modalcore.siwx.backend.tokens import load_or_create_key
from modalcore.store.base import AuditConflict, SessionStore
from modalcore.store.redis import RedisStore
from modalcore.store.sqlite import SqliteStore

from .test_audit_log import drive_connect_disconnect

_prefixes = itertools.count()


class Box(Protocol):
    """A store as someone holding its files (or its Redis) can change it, past the engine."""

    def open(self) -> SessionStore: ...
    def where(self) -> list[str]: ...  # `audit verify` arguments naming the store
    def replace_entries(self, session: str, entries: list[StoredEntry]) -> None: ...
    def drop_heads(self) -> None: ...


class SqliteBox:
    def __init__(self, folder: Path) -> None:
        self.path = folder / "sessions.db"

    def open(self) -> SessionStore:
        return SqliteStore(self.path)

    def where(self) -> list[str]:
        return ["--store", str(self.path)]

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path)
        for trigger in ("audit_no_delete", "audit_heads_no_delete"):
            db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        return db

    def replace_entries(self, session: str, entries: list[StoredEntry]) -> None:
        db = self._db()
        db.execute("DELETE FROM audit WHERE session = ?", (session,))
        db.executemany("INSERT INTO audit (session, seq, body, hash) VALUES (?, ?, ?, ?)",
                       [(e.session_id, e.seq, e.body, e.hash) for e in entries])
        db.commit()
        db.close()

    def drop_heads(self) -> None:
        db = self._db()
        db.execute("DELETE FROM audit_heads")
        db.commit()
        db.close()


class RedisBox:
    def __init__(self, url: str) -> None:
        self.url = url
        self.prefix = f"anchor{next(_prefixes)}:"

    def open(self) -> SessionStore:
        return RedisStore.from_url(self.url, prefix=self.prefix)

    def where(self) -> list[str]:
        return ["--redis", self.url, "--prefix", self.prefix]

    def replace_entries(self, session: str, entries: list[StoredEntry]) -> None:
        client = redis.Redis.from_url(self.url)
        key = f"{self.prefix}a:{session}"
        client.delete(key)
        for entry in entries:
            client.hset(key, str(entry.seq), msgpack.packb([entry.body, entry.hash]))
        client.close()

    def drop_heads(self) -> None:
        client = redis.Redis.from_url(self.url)
        for key in client.scan_iter(match=f"{self.prefix}ah:*"):
            client.delete(key)
        client.close()


@pytest.fixture(params=["sqlite", "redis"])
def box(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Box]:
    if request.param == "sqlite":
        yield SqliteBox(tmp_path)
    else:
        yield RedisBox(request.getfixturevalue("redis_url"))


@pytest.fixture()
def key(tmp_path: Path) -> LocalAccount:
    return load_or_create_key(tmp_path / "engine.key")


def fill(box: Box, key: LocalAccount | None, sessions: tuple[str, ...] = ("s-audit",)) -> None:
    """Sessions of three entries each, through the runner; their heads signed (one set per
    session, as if each came in its own second) unless `key` is None."""
    async def run() -> None:
        store = box.open()
        signer = HeadSigner(store, key, lambda: 1_700_000_000_000) if key is not None else None
        for session in sessions:
            await drive_connect_disconnect(store, signer, session)
        await store.close()
    asyncio.run(run())


def entries(box: Box, session: str = "s-audit") -> list[StoredEntry]:
    async def read() -> list[StoredEntry]:
        store = box.open()
        try:
            return await store.audit.entries(session)
        finally:
            await store.close()
    return asyncio.run(read())


def rewritten(original: list[StoredEntry], origin: str = "https://evil.example") -> list[StoredEntry]:
    """The same log written again from the start with another page origin: every link holds."""
    out, prev = [], GENESIS
    for entry in original:
        value = json.loads(entry.body)
        data = {**value["data"], "origin": origin} if value["kind"] == "connect" else value["data"]
        new = make_entry(entry.session_id, entry.seq, value["at"], value["kind"], data, prev)
        out.append(new)
        prev = new.hash
    return out


def verify(box: Box, key: LocalAccount | None, *more: str) -> int:
    address = ["--engine-address", key.address] if key is not None else []
    return main(["audit", "verify", *box.where(), *address, *more])


def test_rule_every_session_is_anchored_by_a_signed_head_and_verify_says_so(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    fill(box, key, ("s-one", "s-two"))
    assert verify(box, key) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: 6 entries in 2 sessions, every link holds")
    assert f"2 sessions anchored by 2 signed head sets (signer {key.address})" in out
    assert "unanchored" not in out


def test_rule_deleting_a_sessions_last_entries_fails_verify_as_truncated(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    fill(box, key)
    box.replace_entries("s-audit", entries(box)[:1])  # entries 2 and 3 deleted: the rest holds
    assert verify(box, key) == Problem.TRUNCATED.value == 3
    out = capsys.readouterr().out
    assert out.startswith("TRUNCATED session s-audit entry 3: the engine signed the log up to "
                          "entry 3")
    assert "it ends at entry 1: entries 2 to 3 were deleted" in out


def test_rule_deleting_a_sessions_whole_log_fails_verify_as_truncated(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    fill(box, key)
    box.replace_entries("s-audit", [])
    assert verify(box, key) == 3
    assert "it holds no entry: its whole log was deleted" in capsys.readouterr().out


def test_rule_rewriting_a_whole_chain_with_fresh_hashes_fails_verify_as_rewritten(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    fill(box, key)
    box.replace_entries("s-audit", rewritten(entries(box)))
    assert verify(box, key) == Problem.REWRITTEN.value == 4
    out = capsys.readouterr().out
    assert out.startswith("REWRITTEN session s-audit entry 3: it is not the entry the engine signed")


def test_rule_entries_written_before_heads_were_signed_still_verify_as_unanchored(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    fill(box, None)  # an engine from before signed heads
    assert verify(box, None) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: 3 entries in 1 session, every link holds")
    assert "1 session unanchored" in out
    fill(box, key, ("s-new",))  # then an engine that signs: the old log stays as it was
    assert verify(box, key) == 0
    out = capsys.readouterr().out
    assert "1 session anchored" in out and "1 session unanchored" in out


def test_rule_heads_not_signed_by_the_engine_key_fail_verify(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    """Someone with the store but not the key rewrites a log and signs its new head with a key
    of their own: the set is not the engine's, and the engine's own set no longer matches."""
    fill(box, key)
    forged = rewritten(entries(box))
    box.replace_entries("s-audit", forged)
    other = Account.create()
    body = make_body("forger", 1, 1, GENESIS, other.address, [Head("s-audit", 3, forged[-1].hash)])

    async def add() -> None:
        store = box.open()
        await store.audit.append_heads(SignedHeads("forger", 1, body, sign(other, body)))
        await store.close()

    asyncio.run(add())
    assert verify(box, key) == Problem.HEADS.value == 5
    out = capsys.readouterr().out
    assert f"HEADS signed set forger/1: not signed by the engine key {key.address.lower()}" in out
    assert "REWRITTEN session s-audit entry 3" in out


def test_rule_a_signed_set_missing_between_two_fails_verify(
        tmp_path: Path, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    box = SqliteBox(tmp_path)
    fill(box, key, ("s-one", "s-two"))
    db = sqlite3.connect(box.path)
    db.execute("DROP TRIGGER audit_heads_no_delete")
    db.execute("DELETE FROM audit_heads WHERE n = 1")
    db.commit()
    db.close()
    assert verify(box, key) == 5
    assert "sets 1 to 1 of this process are missing (deleted)" in capsys.readouterr().out


def test_rule_a_rewrite_by_the_key_holder_shows_against_heads_kept_elsewhere(
        box: Box, key: LocalAccount, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    """The limit docs/operators/audit.md states: whoever holds the engine key can rewrite a log and sign new
    heads for it, and the store alone cannot tell. The signed heads exported before (or the
    engine's log lines) can: they no longer match."""
    with caplog.at_level(logging.INFO, logger="modalcore.audit.signer"):
        fill(box, key)
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("audit heads signed ")]
    assert len(logged) == 1
    assert main(["audit", "export-heads", *box.where()]) == 0
    exported = capsys.readouterr().out
    assert json.loads(exported)["digest"] == json.loads(logged[0].split(" ", 3)[3])["digest"]
    (tmp_path / "exported.jsonl").write_text(exported)
    (tmp_path / "operator.log").write_text("".join(f"2026-11-27 INFO {line}\n" for line in logged))

    forged = rewritten(entries(box))
    box.replace_entries("s-audit", forged)
    box.drop_heads()
    stored = json.loads(exported)
    body = make_body(stored["worker"], 1, 1, GENESIS, key.address, [Head("s-audit", 3, forged[-1].hash)])

    async def resign() -> None:
        store = box.open()
        await store.audit.append_heads(SignedHeads(stored["worker"], 1, body, sign(key, body)))
        await store.close()

    asyncio.run(resign())
    assert verify(box, key) == 0  # the store alone: indistinguishable
    capsys.readouterr()
    assert verify(box, key, "--anchors", str(tmp_path / "exported.jsonl")) == 5
    out = capsys.readouterr().out
    assert "the store holds another set than the one anchored (rewritten)" in out
    assert "REWRITTEN session s-audit entry 3" in out  # the exported body's heads still count
    assert verify(box, key, "--anchors", str(tmp_path / "operator.log")) == 5


def test_rule_verify_reads_the_store_and_the_engine_key_from_the_config(
        tmp_path: Path, redis_url: str, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    box = RedisBox(redis_url)
    fill(box, key)
    config = tmp_path / "engine.json"
    config.write_text(json.dumps({
        "store": {"kind": "redis", "url": redis_url, "prefix": box.prefix},
        "siwx": {"key_file": "engine.key"}}))
    assert main(["audit", "verify", "--config", str(config)]) == 0
    assert f"(signer {key.address})" in capsys.readouterr().out
    box.replace_entries("s-audit", entries(box)[:2])
    assert main(["audit", "verify", "--config", str(config)]) == 3


def test_rule_signed_heads_without_a_known_engine_address_are_a_usage_error(
        tmp_path: Path, key: LocalAccount, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    box = SqliteBox(tmp_path)
    fill(box, key)
    monkeypatch.chdir(tmp_path / "..")  # no .modalcore/engine.key here
    assert verify(box, None) == 2
    assert "--engine-address" in capsys.readouterr().err


def test_rule_verify_store_types_each_finding(tmp_path: Path, key: LocalAccount) -> None:
    box = SqliteBox(tmp_path)
    fill(box, key, ("s-cut", "s-new"))
    box.replace_entries("s-cut", entries(box, "s-cut")[:2])
    box.replace_entries("s-new", rewritten(entries(box, "s-new")))

    async def check() -> list[tuple[Problem, str]]:
        store = box.open()
        verdict = await verify_store(store, key.address)
        await store.close()
        assert verdict.exit_code == 4
        return [(f.problem, f.where) for f in verdict.findings]

    assert asyncio.run(check()) == [(Problem.TRUNCATED, "session s-cut entry 3"),
                                    (Problem.REWRITTEN, "session s-new entry 3")]


def test_rule_the_signed_heads_table_is_append_only(tmp_path: Path, key: LocalAccount) -> None:
    box = SqliteBox(tmp_path)
    fill(box, key)
    db = sqlite3.connect(box.path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM audit_heads")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE audit_heads SET signature = '0x'")
    db.close()


def test_rule_every_store_keeps_signed_sets_append_only_and_reads_a_logs_head(box: Box) -> None:
    fill(box, None)

    async def check() -> None:
        store = box.open()
        try:
            signed = SignedHeads("w", 1, b"{}", "0x00")
            await store.audit.append_heads(signed)
            with pytest.raises(AuditConflict):
                await store.audit.append_heads(SignedHeads("w", 1, b"{ }", "0x01"))
            assert await store.audit.all_heads() == [signed]
            head = await store.audit.head("s-audit")
            assert head == (await store.audit.entries("s-audit"))[-1] and head.seq == 3
            assert await store.audit.head("nobody") is None
        finally:
            await store.close()

    asyncio.run(check())


def test_rule_a_store_file_from_before_signed_heads_still_verifies_as_unanchored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    box = SqliteBox(tmp_path)
    fill(box, None)
    db = sqlite3.connect(box.path)
    db.execute("DROP TABLE audit_heads")  # the file as the engine before issue 31 left it
    db.commit()
    db.close()
    assert verify(box, None) == 0
    assert "3 entries in 1 session, every link holds; 1 session unanchored" in capsys.readouterr().out
