"""Embedded wallet keys at rest (issue 15 §3): envelope encryption, same identity same address,
master key rotation, wrong master key, and no private key bytes in the database or the logs."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.__main__ import main
from modalcore.embedded.keys import Identity, KeyVault, KeyVaultError, rotate_master_key
from modalcore.embedded.masterkey import (
    MasterKey,
    MasterKeyError,
    WrongMasterKey,
    load_master_key,
)

MASTER = MasterKey(bytes(range(32)))
OTHER = MasterKey(bytes(range(1, 33)))
ALICE = Identity("email", "alice@example.com")
BOB = Identity("google", "110248495921238986420")


def stored_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file())


def secrets_of(account_key: bytes) -> list[bytes]:
    hexed = account_key.hex()
    return [account_key, hexed.encode(), hexed.upper().encode(), ("0x" + hexed).encode()]


def test_same_identity_gets_the_same_address_across_reopening(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    vault = KeyVault(path, MASTER)
    first = vault.get_or_create(ALICE, 1)
    assert vault.get_or_create(ALICE, 2) == first
    assert vault.get_or_create(BOB, 3) != first
    vault.close()
    assert KeyVault(path, MASTER).get_or_create(ALICE, 4) == first


def test_the_stored_key_signs_for_its_address(tmp_path: Path) -> None:
    vault = KeyVault(tmp_path / "keys.sqlite", MASTER)
    address = vault.get_or_create(ALICE, 1)
    signed = vault.account(ALICE).sign_message(encode_defunct(text="hello"))
    assert Account.recover_message(encode_defunct(text="hello"),
                                   signature=signed.signature) == address


def test_no_private_key_bytes_in_the_database_or_logs(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    vault = KeyVault(tmp_path / "keys.sqlite", MASTER)
    identities = [Identity("email", f"user{i}@example.com") for i in range(5)]
    for i, identity in enumerate(identities):
        vault.get_or_create(identity, i)
    keys = [bytes(vault.account(identity).key) for identity in identities]
    rotate_master_key(tmp_path / "keys.sqlite", MASTER, OTHER)
    vault.close()
    stored = stored_bytes(tmp_path)
    assert b"user0@example.com" in stored  # the search does look at the real bytes
    logs = "\n".join(r.getMessage() for r in caplog.records).encode()
    assert b"embedded wallet created" in logs
    for key in keys:
        for form in secrets_of(key):
            assert form not in stored
            assert form not in logs
    for secret in (MASTER.secret, OTHER.secret):
        for form in secrets_of(secret):
            assert form not in stored and form not in logs


def test_rotation_keeps_every_address_and_the_old_key_stops_working(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    vault = KeyVault(path, MASTER)
    identities = [Identity("email", f"u{i}@example.com") for i in range(4)] + [BOB]
    before = {identity: vault.get_or_create(identity, 0) for identity in identities}
    vault.close()
    assert rotate_master_key(path, MASTER, OTHER) == 5
    rotated = KeyVault(path, OTHER)
    for identity, address in before.items():
        assert rotated.get_or_create(identity, 9) == address
        assert rotated.account(identity).address == address
    with pytest.raises(WrongMasterKey):
        KeyVault(path, MASTER)
    with pytest.raises(WrongMasterKey):
        rotate_master_key(path, MASTER, MasterKey(b"\x07" * 32))


def test_wrong_master_key_is_a_typed_error_that_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    KeyVault(path, MASTER).get_or_create(ALICE, 1)
    before = sqlite3.connect(path).execute("SELECT * FROM embedded_keys").fetchall()
    with pytest.raises(WrongMasterKey):
        KeyVault(path, OTHER)
    with pytest.raises(WrongMasterKey):
        rotate_master_key(path, OTHER, MasterKey(b"\x09" * 32))
    assert sqlite3.connect(path).execute("SELECT * FROM embedded_keys").fetchall() == before


def test_a_wrapped_key_that_does_not_open_under_a_matching_key_id_is_corrupt(
        tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    KeyVault(path, MASTER).get_or_create(ALICE, 1)
    db = sqlite3.connect(path)
    db.execute("UPDATE embedded_keys SET master_id = ?", (OTHER.key_id,))
    db.commit()
    with pytest.raises(KeyVaultError, match="is corrupt"):
        KeyVault(path, OTHER).account(ALICE)
    with pytest.raises(KeyVaultError, match="is corrupt"):
        rotate_master_key(path, OTHER, MASTER)


def test_rows_cannot_be_swapped_between_identities(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    vault = KeyVault(path, MASTER)
    vault.get_or_create(ALICE, 1)
    vault.get_or_create(BOB, 1)
    db = sqlite3.connect(path)
    alice_row = db.execute("SELECT wrapped_key, sealed_secret FROM embedded_keys "
                           "WHERE identity = ?", (str(ALICE),)).fetchone()
    db.execute("UPDATE embedded_keys SET wrapped_key = ?, sealed_secret = ? WHERE identity = ?",
               (*alice_row, str(BOB)))
    db.commit()
    with pytest.raises(KeyVaultError):
        vault.account(BOB)


@pytest.mark.parametrize("text", ["", "abc", "00" * 31, "zz" * 32, "AAAA"])
def test_malformed_master_key_is_refused(text: str) -> None:
    with pytest.raises(MasterKeyError):
        MasterKey.parse(text)


def test_master_key_from_env_or_file(tmp_path: Path) -> None:
    import base64

    assert load_master_key({"MODALCORE_MASTER_KEY": MASTER.hex()}) == MASTER
    assert load_master_key(
        {"MODALCORE_MASTER_KEY": base64.b64encode(MASTER.secret).decode()}) == MASTER
    key_file = tmp_path / "master.key"
    key_file.write_text(MASTER.hex() + "\n")
    assert load_master_key({"MODALCORE_MASTER_KEY_FILE": str(key_file)}) == MASTER
    with pytest.raises(MasterKeyError):
        load_master_key({})
    with pytest.raises(MasterKeyError):
        load_master_key({"MODALCORE_MASTER_KEY_FILE": str(tmp_path / "missing")})
    assert MASTER.hex() not in repr(MASTER)


def test_cli_rotates_the_master_key(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "keys.sqlite"
    address = KeyVault(path, MASTER).get_or_create(ALICE, 1)
    new_file = tmp_path / "new.key"
    new_file.write_text(OTHER.hex())
    monkeypatch.setenv("MODALCORE_MASTER_KEY", MASTER.hex())
    assert main(["keys", "rotate-master-key", "--db", str(path),
                 "--new-key-file", str(new_file)]) == 0
    assert capsys.readouterr().out.strip() == "re-wrapped 1 data keys"
    assert KeyVault(path, OTHER).account(ALICE).address == address
    # run again with the old key: refused, typed, no traceback
    assert main(["keys", "rotate-master-key", "--db", str(path),
                 "--new-key-file", str(new_file)]) == 2
    assert capsys.readouterr().err.strip() == (
        "keys: the master key does not match the stored keys")


def test_cli_as_a_process(tmp_path: Path) -> None:
    generated = subprocess.run([sys.executable, "-m", "modalcore", "keys", "generate-master-key"],
                               capture_output=True, text=True, check=True).stdout.strip()
    assert len(MasterKey.parse(generated).secret) == 32
    path = tmp_path / "keys.sqlite"
    address = KeyVault(path, MasterKey.parse(generated)).get_or_create(BOB, 1)
    new = MasterKey.generate()
    done = subprocess.run(
        [sys.executable, "-m", "modalcore", "keys", "rotate-master-key", "--db", str(path)],
        capture_output=True, text=True,
        env={"MODALCORE_MASTER_KEY": generated, "MODALCORE_NEW_MASTER_KEY": new.hex(),
             "PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "re-wrapped 1 data keys", "")
    assert KeyVault(path, new).account(BOB).address == address
