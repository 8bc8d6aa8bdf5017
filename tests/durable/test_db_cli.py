"""Operating the shared PostgreSQL (issue 42): `modalcore db upgrade` brings a database to the
engine's schema, `serve` refuses an older one in one line before any worker starts, `modalcore
db copy` moves a one-host SQLite embedded.db into it (keys still sealed and still the same
addresses, codes, budgets and the ledger carried over) and refuses a target already written
to, and the engine's wallet (`[database] url`) writes there instead of its file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from starlette.testclient import TestClient

from modalcore.__main__ import main
from modalcore.aa.ledger import SponsorLedger
from modalcore.aa.policy import DAY_MS, BudgetSpent, SponsorPolicy, SponsorRequest
from modalcore.durable.config import open_shared
from modalcore.durable.postgres import PostgresDb
from modalcore.durable.schema import VERSION
from modalcore.embedded.budget import BudgetStore, OverBudget, Receipt, Rule
from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.setup import open_wallet, section_of
from modalcore.netports import free_port
from modalcore.server.app import create_app
from modalcore_testing import make_test_config

MASTER = MasterKey(bytes(range(32)))
ALICE = Identity("email", "alice@example.com")
CHAIN = "eip155:31337"
T0 = 20_000 * DAY_MS + 3_600_000
POLICY = SponsorPolicy(projects=["demo"], chains=[CHAIN], budget_wei_per_day=100)
KEY = b"k" * 32


def _request(cost: int) -> SponsorRequest:
    return SponsorRequest("demo", CHAIN, "eth_sendTransaction", "0x" + "a" * 40, cost)


def test_rule_db_upgrade_then_status_names_the_engines_version(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "status", "--url", pg_url]) == 0
    assert capsys.readouterr().out.strip() == f"schema version 0, this engine needs {VERSION}"
    assert main(["db", "upgrade", "--url", pg_url]) == 0
    assert main(["db", "upgrade", "--url", pg_url]) == 0
    out = capsys.readouterr().out.splitlines()
    every = ", ".join(str(n) for n in range(1, VERSION + 1))
    assert out == [f"schema at version {VERSION} (applied {every})", f"schema at version {VERSION} (nothing to apply)"]


def test_rule_serve_refuses_a_schema_older_than_the_engine_in_one_line(pg_url: str, tmp_path: Path) -> None:
    config = tmp_path / "engine.toml"
    config.write_text(f'[database]\nurl = "{pg_url}"\n')
    done = subprocess.run([sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--port",
                           str(free_port())], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"database: the database schema is at version 0, this engine needs {VERSION}: "
                                   "run `modalcore db upgrade --config FILE` first")


def _one_host(path: Path) -> tuple[str, str]:
    """A one-host embedded.db with a key, a code asked by a session, a spent mail budget and a
    day's sponsoring; returns the key's address and the code."""
    vault = KeyVault(path, MASTER)
    address = vault.get_or_create(ALICE, 1)
    code = EmailCodes(CodeStore(path), KEY).request("alice@example.com", T0, bytes(64), "session-1")[1]
    budget = BudgetStore(path)
    assert isinstance(budget.take([Rule("email:alice", 2, 3_600_000)], T0), Receipt)
    assert isinstance(budget.take([Rule("email:alice", 2, 3_600_000)], T0 + 1), Receipt)
    SponsorLedger(path).reserve(POLICY, _request(60), T0)
    return address, code


def test_rule_db_copy_moves_a_one_host_file_into_postgres(pg_url: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "embedded.db"
    address, code = _one_host(path)
    assert main(["db", "upgrade", "--url", pg_url]) == 0
    assert main(["db", "copy", "--from", str(path), "--url", pg_url]) == 0
    assert "embedded_keys 1" in capsys.readouterr().out
    db = PostgresDb(pg_url)
    try:
        vault = KeyVault(db, MASTER)
        assert vault.get_or_create(ALICE, 2) == address
        assert vault.account(ALICE).address == address  # still sealed under the same master key
        verdict = EmailCodes(CodeStore(db), KEY).submit("alice@example.com", code, T0 + 5, "session-1")
        assert verdict.verdict.value == "accepted"
        budget = BudgetStore(db)
        assert isinstance(budget.take([Rule("email:alice", 2, 3_600_000)], T0 + 2), OverBudget)
        assert isinstance(budget.take([Rule("email:bob", 2, 3_600_000)], T0 + 2), Receipt)  # the ids go on
        assert SponsorLedger(db).reserve(POLICY, _request(41), T0) == (BudgetSpent(60, 100), None)
    finally:
        db.close()
    # a second copy would merge into records hosts wrote: refused in one line, nothing copied
    assert main(["db", "copy", "--from", str(path), "--url", pg_url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("db: the target's embedded_keys already holds rows") and err.count("\n") == 1


def test_db_copy_refuses_a_target_that_was_never_upgraded(pg_url: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "embedded.db"
    _one_host(path)
    assert main(["db", "copy", "--from", str(path), "--url", pg_url]) == 2
    assert "run `modalcore db upgrade" in capsys.readouterr().err


def test_the_engines_wallet_writes_to_the_database_of_its_config(pg_url: str, tmp_path: Path) -> None:
    """`[database] url` set: the wallet's stores are PostgreSQL's, its embedded.db is never made."""
    assert main(["db", "upgrade", "--url", pg_url]) == 0
    key = tmp_path / "master.key"
    key.write_text(MASTER.hex())
    extra: dict[str, object] = {
        "embedded": {"db": str(tmp_path / "embedded.db"), "master_key_file": str(key),
                     "smtp": {"host": "127.0.0.1", "port": 25, "sender": "w@modal.test"}},
        "database": {"url": pg_url}}
    shared = open_shared(extra)
    assert shared is not None and shared.kind == "postgres"
    wallet = open_wallet(section_of(extra), Path, b"s" * 32, shared=shared)
    assert wallet is not None and wallet.db is None  # the shared database is its opener's to close
    try:
        address = wallet.vault.get_or_create(ALICE, 1)
        wallet.sponsored.reserve(POLICY, _request(60), T0)
    finally:
        shared.close()
    assert not (tmp_path / "embedded.db").exists()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT address FROM embedded_keys").fetchall() == [(address,)]
        assert conn.execute("SELECT wei FROM sponsored_wei").fetchall() == [("60",)]


def test_rule_keys_rotate_master_key_re_wraps_the_shared_databases_keys(pg_url: str, tmp_path: Path) -> None:
    assert main(["db", "upgrade", "--url", pg_url]) == 0
    db = PostgresDb(pg_url)
    try:
        address = KeyVault(db, MASTER).get_or_create(ALICE, 1)
    finally:
        db.close()
    new = MasterKey.generate()
    old_file, new_file = tmp_path / "old.key", tmp_path / "new.key"
    old_file.write_text(MASTER.hex())
    new_file.write_text(new.hex())
    assert main(["keys", "rotate-master-key", "--db", pg_url, "--old-key-file", str(old_file),
                 "--new-key-file", str(new_file)]) == 0
    db = PostgresDb(pg_url)
    try:
        assert KeyVault(db, new).account(ALICE).address == address
    finally:
        db.close()


def test_an_engine_on_the_shared_database_keeps_sign_in_and_names_there_and_is_healthy(
        pg_url: str, tmp_path: Path) -> None:
    """`[database] url`: the app opens one shared database for its stores (no siwx.db or
    names.db made), /healthz answers 200 while it is reachable, and it is closed at shutdown."""
    assert main(["db", "upgrade", "--url", pg_url]) == 0
    config = make_test_config(database={"url": pg_url},
                              siwx={"db": str(tmp_path / "siwx.db"), "key_file": str(tmp_path / "engine.key")},
                              names={"db": str(tmp_path / "names.db")})
    app = create_app(config)
    with TestClient(app) as client:
        assert app.state.durable is not None and app.state.durable.kind == "postgres"
        health = client.get("/healthz")
        assert health.status_code == 200 and health.json()["ok"] is True
    assert not (tmp_path / "siwx.db").exists() and not (tmp_path / "names.db").exists()
