"""Embedded-wallet keys at rest (issue 15 §3): one secp256k1 key per identity, in the durable
store (a SQLite file, or the shared PostgreSQL: modalcore/durable).

Envelope encryption with AES-256-GCM: each user's private key is sealed with their own random
data key; the data key is wrapped by the operator's master key. Associated data binds each
ciphertext to its identity (and address), so rows cannot be swapped. Rotating the master key
re-wraps the data keys only; sealed private keys and addresses do not change. The same identity
(an email, or a social provider's subject) always gets the same address. Logs name addresses,
never keys.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from eth_account import Account
from eth_account.signers.local import LocalAccount

from ..durable.db import Durable, Result, Tx
from ..durable.sqlite import SqliteDb
from .masterkey import MasterKey, MasterKeyError, WrongMasterKey

log = logging.getLogger(__name__)
NONCE = 12

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embedded_keys (
    identity TEXT PRIMARY KEY,
    address TEXT NOT NULL UNIQUE,
    master_id TEXT NOT NULL,
    wrapped_key BLOB NOT NULL,
    sealed_secret BLOB NOT NULL,
    created_ms INTEGER NOT NULL
);
"""

IDENTITY_KINDS = ("email", "google", "x", "discord", "github", "apple", "facebook", "oidc", "farcaster")


class KeyVaultError(Exception):
    """A stored key cannot be used (corrupt row, unknown identity)."""


class UnknownIdentity(KeyVaultError):
    pass


@dataclass(frozen=True)
class Identity:
    """Who owns a key: ("email", normalized address) or (provider, the provider's subject)."""

    kind: str
    subject: str

    def __post_init__(self) -> None:
        if self.kind not in IDENTITY_KINDS:
            raise ValueError(f"unknown identity kind {self.kind!r}")
        if not self.subject or len(self.subject) > 255:
            raise ValueError("an identity subject is 1 to 255 characters")

    def __str__(self) -> str:
        return f"{self.kind}:{self.subject}"


def _seal(key: bytes, plain: bytes, aad: bytes) -> bytes:
    nonce = secrets.token_bytes(NONCE)
    return nonce + AESGCM(key).encrypt(nonce, plain, aad)


def _open(key: bytes, sealed: bytes, aad: bytes) -> bytes:
    return AESGCM(key).decrypt(sealed[:NONCE], sealed[NONCE:], aad)


def _dk_aad(identity: str) -> bytes:
    return b"modalcore/embedded/data-key\x00" + identity.encode()


def _sk_aad(identity: str, address: str) -> bytes:
    return b"modalcore/embedded/secret-key\x00" + identity.encode() + b"\x00" + address.encode()


def _connect(where: str | Path | Durable) -> Durable:
    """The store at `where` (a SQLite path, or an open database); SQLite zeroes replaced wrapped
    keys (secure_delete), never leaving them in free pages."""
    db = SqliteDb(where) if isinstance(where, (str, Path)) else where
    db.ensure(_SCHEMA)
    return db


def _check_master(db: Durable, master: MasterKey) -> None:
    ids = {row[0] for row in db.execute("SELECT DISTINCT master_id FROM embedded_keys").fetchall()}
    if ids and ids != {master.key_id}:
        raise WrongMasterKey()


class KeyVault:
    """Keys sealed in memory before any row is written: the store only ever sees the wrapped
    data key and the sealed secret."""

    def __init__(self, path: str | Path | Durable, master: MasterKey) -> None:
        self._db = _connect(path)
        self._own = isinstance(path, (str, Path))
        _check_master(self._db, master)
        self._master = master

    def address_of(self, identity: Identity) -> str | None:
        row = self._db.execute(
            "SELECT address FROM embedded_keys WHERE identity = ?", (str(identity),)).fetchone()
        return None if row is None else str(row[0])

    @property
    def db(self) -> Durable:
        return self._db

    def get_or_create(self, identity: Identity, now_ms: int) -> str:
        """The identity's address, creating its key on first use."""
        existing = self.address_of(identity)
        if existing is not None:
            return existing
        sql, args, created = self._new_row(identity, now_ms)
        self._db.execute(sql + " ON CONFLICT DO NOTHING", args)
        address = self.address_of(identity)
        assert address is not None
        if address == created:
            log.info("embedded wallet created for %s: %s", identity.kind, address)
        return address

    def queue_address(self, tx: Tx, identity: Identity) -> Result:
        """Queues the read of the identity's address (its one row, or none) in `tx`."""
        return tx.queue("SELECT address FROM embedded_keys WHERE identity = ?", (str(identity),))

    def queue_create(self, tx: Tx, identity: Identity, now_ms: int) -> tuple[Result, str]:
        """Queues a new key for `identity` (sealed here first) in `tx`, and names its address;
        once sent, the Result's one row is the identity's address: the new one, or the one another
        host stored first (kept)."""
        sql, args, created = self._new_row(identity, now_ms)
        return tx.queue(sql + " ON CONFLICT (identity) DO UPDATE SET identity = excluded.identity "
                        "RETURNING address", args), created

    def _new_row(self, identity: Identity, now_ms: int) -> tuple[str, tuple[object, ...], str]:
        """A new key for `identity` sealed in memory: its INSERT and its address."""
        account = Account.create()
        name = str(identity)
        data_key = AESGCM.generate_key(bit_length=256)
        sealed = _seal(data_key, bytes(account.key), _sk_aad(name, account.address))
        wrapped = _seal(self._master.secret, data_key, _dk_aad(name))
        return ("INSERT INTO embedded_keys (identity, address, master_id, wrapped_key, sealed_secret, created_ms) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, account.address, self._master.key_id, wrapped, sealed, now_ms), account.address)

    def account(self, identity: Identity) -> LocalAccount:
        """The identity's signer, decrypted in memory for the engine only."""
        name = str(identity)
        row = self._db.execute(
            "SELECT address, master_id, wrapped_key, sealed_secret FROM embedded_keys "
            "WHERE identity = ?", (name,)).fetchone()
        if row is None:
            raise UnknownIdentity(f"no embedded wallet for this {identity.kind} identity")
        address, master_id, wrapped, sealed = (str(row[0]), row[1], _bytes(row[2]), _bytes(row[3]))
        if master_id != self._master.key_id:
            raise WrongMasterKey()
        try:
            data_key = _open(self._master.secret, bytes(wrapped), _dk_aad(name))
        except InvalidTag:  # the key id matched: the row itself was altered
            raise KeyVaultError(f"the stored key of {address} is corrupt") from None
        try:
            secret = _open(data_key, bytes(sealed), _sk_aad(name, address))
        except InvalidTag:
            raise KeyVaultError(f"the stored key of {address} is corrupt") from None
        account: LocalAccount = Account.from_key(secret)
        if account.address != address:
            raise KeyVaultError(f"the stored key of {address} does not match its address")
        return account

    def seal_note(self, plain: bytes, aad: bytes) -> bytes:
        """`plain` sealed (AES-GCM) with a key derived from the master key, bound to `aad`: a
        pending social sign-in or grant in the shared session store (embedded/social.py) is
        unreadable and unforgeable there."""
        return _seal(self._note_key(), plain, b"modalcore/embedded/note\x00" + aad)

    def open_note(self, sealed: bytes, aad: bytes) -> bytes | None:
        """What `seal_note` sealed with this `aad` (None: altered, or sealed under another key)."""
        try:
            return _open(self._note_key(), sealed, b"modalcore/embedded/note\x00" + aad)
        except (InvalidTag, ValueError):
            return None

    def _note_key(self) -> bytes:
        return hmac.new(self._master.secret, b"modalcore/embedded/note-key", hashlib.sha256).digest()

    def close(self) -> None:
        """Close a SQLite file it opened (a database handed to it is its opener's to close)."""
        if self._own:
            self._db.close()


def _bytes(value: object) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise KeyVaultError("a stored key is not bytes")


def rotate_master_key(path: str | Path | Durable, old: MasterKey, new: MasterKey) -> int:
    """Re-wrap every data key from `old` to `new` in one transaction; returns how many."""
    if old.key_id == new.key_id:
        raise MasterKeyError("the new master key is the same as the old one")
    db = _connect(path)
    try:
        _check_master(db, old)
        with db.transaction(["embedded_keys"]) as tx:
            rows = tx.execute("SELECT identity, wrapped_key FROM embedded_keys").fetchall()
            for identity, wrapped in rows:
                name = str(identity)
                try:
                    data_key = _open(old.secret, _bytes(wrapped), _dk_aad(name))
                except InvalidTag:
                    raise KeyVaultError(f"the stored key of {name} is corrupt") from None
                tx.execute(
                    "UPDATE embedded_keys SET wrapped_key = ?, master_id = ? WHERE identity = ?",
                    (_seal(new.secret, data_key, _dk_aad(name)), new.key_id, name))
        db.compact()
        log.info("master key rotated: %d data keys re-wrapped", len(rows))
        return len(rows)
    finally:
        if isinstance(path, (str, Path)):
            db.close()
