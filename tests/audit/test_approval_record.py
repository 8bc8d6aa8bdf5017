"""A signed record of the screen (docs/features/approval-record.md): an Approve in the embedded
wallet's frame leaves in the audit log the approval tree the frame drew, its hash, the device
key's signature over it and the digest of the call the engine executed; `audit show` draws it
again and checks all of it with the chain and its signed heads, in a SQLite file and a real
redis-server. A record changed after the fact (a byte of the tree, the signature, the executed
call), with the chain written again to match or not, fails `audit show`."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from eth_account import Account

from modalcore.__main__ import main
from modalcore.ledger.chain import GENESIS, StoredEntry, make_entry
from modalcore.ops.audit_show import MISMATCH, NOT_FOUND
from modalcore.audit.verify import verify_store
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore.server.app import create_app
from modalcore.server.config import parse_config
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, serve_app

from ..embedded.device import DeviceKey
from ..embedded.test_approval_credential import CLOCK, _rpc_answers, approve, ask, sign_in
from .test_audit_anchor import Box, RedisBox, SqliteBox, entries


@dataclass
class Approved:
    box: Box
    session: str
    request: str
    engine: str  # the address that signs the heads


@pytest.fixture(scope="module")
def mail() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


def _engine_config(folder: Path, mail: LocalSmtpServer, store: dict[str, str]) -> dict[str, object]:
    key = folder / "master.key"
    key.write_text(MasterKey.generate().hex())
    return {
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
        "store": store,
        "siwx": {"key_file": str(folder / "engine.key")},
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key),
                     "smtp": {"host": "127.0.0.1", "port": mail.port, "tls": "none",
                              "sender": "Wallet <no-reply@modal.test>"},
                     "mail_budget": {"address_per_minute": 100, "address_per_hour": 1000}},
    }


def _signed_up_to(box: Box, session: str) -> int:
    async def read() -> int:
        store = box.open()
        try:
            return (await verify_store(store, only=session)).signed_upto.get(session, 0)
        finally:
            await store.close()
    return asyncio.run(read())


@pytest.fixture(params=["sqlite", "redis"])
def approved(request: pytest.FixtureRequest, tmp_path: Path, mail: LocalSmtpServer) -> Iterator[Approved]:
    """A visitor signed in by email approved a personal_sign in the frame; the engine stopped
    once the log's head was signed."""
    box: Box
    if request.param == "sqlite":
        sqlite = SqliteBox(tmp_path)
        box, store = sqlite, {"kind": "sqlite", "path": str(sqlite.path)}
    else:
        redis = RedisBox(request.getfixturevalue("redis_url"))
        box, store = redis, {"kind": "redis", "url": redis.url, "prefix": redis.prefix}
    config = parse_config(_engine_config(tmp_path, mail, store))
    visitor = DeviceKey()

    async def visit() -> tuple[str, str]:
        async with httpx.AsyncClient(base_url=running.http_url, timeout=10) as http, running.client() as client:
            address = await sign_in(client, http, mail, "record@example.com", visitor)
            _, eid = await ask(client, "1", "personal_sign", ["0x68656c6c6f", address])
            answer, _ = await approve(http, client.session, eid, visitor)
            assert answer.status_code == 200, answer.text
            await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
            return client.session, eid

    with serve_app(create_app(config, clock=CLOCK), free_port()) as running:
        session, eid = asyncio.run(visit())
        last = entries(box, session)[-1].seq
        deadline = time.monotonic() + 10
        while _signed_up_to(box, session) < last:
            assert time.monotonic() < deadline, "the head was not signed"
            time.sleep(0.1)
    engine = Account.from_key((tmp_path / "engine.key").read_text().strip()).address
    yield Approved(box, session, eid, engine)


def show(approved: Approved, request: str | None = None) -> int:
    # options first, then `--`: a session id may begin with "-" (urlsafe base64)
    return main(["audit", "show", *approved.box.where(), "--engine-address", approved.engine,
                 "--", approved.session, request or approved.request])


def _approval(log: list[StoredEntry]) -> tuple[int, dict[str, object]]:
    for index, entry in enumerate(log):
        value = json.loads(entry.body)
        if value["kind"] == "approval":
            return index, value
    raise AssertionError("no approval entry")


def _changed(log: list[StoredEntry], data: dict[str, object], rechain: bool) -> list[StoredEntry]:
    """The log with the approval entry's data replaced: its chain written again to match
    (`rechain`), or that one entry's bytes edited in place."""
    index, value = _approval(log)
    if not rechain:
        body = json.dumps({**value, "data": data}, sort_keys=True, separators=(",", ":")).encode()
        return [*log[:index], StoredEntry(log[index].session_id, log[index].seq, body, log[index].hash),
                *log[index + 1:]]
    out, prev = [], GENESIS
    for i, entry in enumerate(log):
        old = json.loads(entry.body)
        new = make_entry(entry.session_id, entry.seq, old["at"], old["kind"], data if i == index else old["data"], prev)
        out.append(new)
        prev = new.hash
    return out


def test_rule_audit_show_draws_the_approved_screen_again_and_verifies_it(
        approved: Approved, capsys: pytest.CaptureFixture[str]) -> None:
    assert show(approved) == 0
    out = capsys.readouterr().out
    assert f"session {approved.session} request {approved.request}: personal_sign approved" in out
    assert "\nSign message\nrecord@example.com · " + TEST_ORIGIN in out  # the heading, who, where
    assert "  Message: hello" in out
    assert "simulated outcome: none shown (not simulated)" in out
    assert "the signer's answer: 0x" in out
    for check in ("the stored tree is a canonical approval tree", "its SHA-256 is the hash the visitor signed",
                  "it is the tree of this session and request", "the call it shows has the digest the visitor signed",
                  "the call the engine handed its signer is the call shown", "the device key's signature holds",
                  "the audit chain holds", "the entry is anchored: the engine " + approved.engine):
        assert f"ok   {check}" in out, check
    assert "FAIL" not in out and out.rstrip().endswith("ok: what was approved is what is recorded")
    assert show(approved, "e999") == NOT_FOUND


def test_rule_a_changed_byte_of_the_stored_tree_fails_audit_show(
        approved: Approved, capsys: pytest.CaptureFixture[str]) -> None:
    log = entries(approved.box, approved.session)
    _, value = _approval(log)
    data = dict(value["data"])  # type: ignore[call-overload]
    tree = bytearray(base64.urlsafe_b64decode(data["tree"] + "=" * (-len(data["tree"]) % 4)))
    tree[tree.index(b"hello")] = ord("j")  # "jello": still a canonical tree, another message
    data["tree"] = base64.urlsafe_b64encode(bytes(tree)).rstrip(b"=").decode()
    approved.box.replace_entries(approved.session, _changed(log, data, rechain=True))
    assert show(approved) == MISMATCH  # written again: REWRITTEN (4) too, the record's 7 wins
    out = capsys.readouterr().out
    assert "  Message: jello" in out  # drawn as stored, and then:
    assert "FAIL its SHA-256 is the hash the visitor signed" in out
    assert f"FAIL the audit chain holds: REWRITTEN session {approved.session}" in out
    approved.box.replace_entries(approved.session, _changed(log, data, rechain=False))
    assert show(approved) == MISMATCH
    out = capsys.readouterr().out
    assert "FAIL its SHA-256 is the hash the visitor signed" in out
    assert "FAIL the audit chain holds: BROKEN" in out and "its bytes do not match its hash (edited)" in out


def test_rule_a_changed_signature_or_executed_call_fails_audit_show(
        approved: Approved, capsys: pytest.CaptureFixture[str]) -> None:
    log = entries(approved.box, approved.session)
    _, value = _approval(log)
    data = dict(value["data"])  # type: ignore[call-overload]
    signature = str(data["signature"])
    forged = {**data, "signature": ("B" if signature[0] != "B" else "C") + signature[1:]}
    approved.box.replace_entries(approved.session, _changed(log, forged, rechain=True))
    assert show(approved) == MISMATCH
    out = capsys.readouterr().out
    assert "FAIL the device key's signature holds" in out and "ok   its SHA-256 is the hash" in out
    # a changed engine that executed another call than the one drawn
    other = {**data, "executed_digest": "ab" * 32}
    approved.box.replace_entries(approved.session, _changed(log, other, rechain=True))
    assert show(approved) == MISMATCH
    out = capsys.readouterr().out
    assert "FAIL the call the engine handed its signer is the call shown" in out
    assert "ok   the device key's signature holds" in out
    # the log as the engine wrote it, without its signed heads: it verifies, unanchored
    approved.box.replace_entries(approved.session, log)
    approved.box.drop_heads()
    assert show(approved) == 0
    assert "not covered by a signed head yet" in capsys.readouterr().out
