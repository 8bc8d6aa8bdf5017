"""The browsers that may approve for an identity (issue 27 §1): the public half of a
non-extractable WebCrypto key (ECDSA P-256) that an engine-origin frame created, registered only
after a sign-in completed inside that frame (the email code typed there, the social popup it
opened). An approval counts only with that key's signature; nothing the host page or its server
can learn registers one.

At most MAX_PER_IDENTITY keys per identity (the oldest is dropped); a key is named by the SHA-256
of its SubjectPublicKeyInfo (hex, 64 characters).
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import load_der_public_key

from ..durable.db import Durable, Tx
from ..rules import limits as L
from ..durable.sqlite import SqliteDb

MAX_PER_IDENTITY = 16
MAX_SPKI_BYTES = L.DEVICE_KEY_SPKI_BYTES
SIGNATURE_BYTES = 64  # WebCrypto's ECDSA signature: r || s, 32 bytes each

_SCHEMA = """
CREATE TABLE IF NOT EXISTS device_keys (
    key_id TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    spki BLOB NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS device_keys_identity ON device_keys (identity, created_ms);
"""


class BadPublicKey(ValueError):
    """Not a P-256 public key in SubjectPublicKeyInfo form (base64url)."""


def _b64(text: str, limit: int) -> bytes:
    if not text or len(text) > limit * 2 or not all(c.isalnum() or c in "-_=" for c in text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_public_key(spki_b64: str) -> tuple[str, bytes]:
    """(key id, SPKI bytes) of a frame's public key, or BadPublicKey."""
    try:
        spki = _b64(spki_b64, MAX_SPKI_BYTES)
        key = load_der_public_key(spki)
    except (ValueError, UnsupportedAlgorithm):
        raise BadPublicKey("not a public key") from None
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        raise BadPublicKey("not a P-256 key")
    return hashlib.sha256(spki).hexdigest(), spki


def signature_ok(spki: bytes, message: bytes, signature_b64: str) -> bool:
    try:
        raw = _b64(signature_b64, SIGNATURE_BYTES)
        key = load_der_public_key(spki)
    except (ValueError, UnsupportedAlgorithm):
        return False
    if len(raw) != SIGNATURE_BYTES or not isinstance(key, ec.EllipticCurvePublicKey):
        return False
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


class DeviceKeys:
    """In the durable store (a SQLite path, ":memory:", or an open database)."""

    def __init__(self, path: Path | str | Durable = ":memory:") -> None:
        self._db = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._db.ensure(_SCHEMA)

    @property
    def db(self) -> Durable:
        return self._db

    @staticmethod
    def lock(identity: str) -> str:
        return f"device_keys:{identity}"

    def register(self, identity: str, spki_b64: str, now_ms: int) -> str:
        """Registers the key for `identity` (BadPublicKey if it is not one); returns its id."""
        with self._db.transaction([self.lock(identity)]) as tx:
            return self.queue_register(tx, identity, spki_b64, now_ms)

    def queue_register(self, tx: Tx, identity: str, spki_b64: str, now_ms: int) -> str:
        """`register` queued in `tx` (which holds `lock(identity)`)."""
        key_id, spki = parse_public_key(spki_b64)
        tx.queue("INSERT INTO device_keys VALUES (?, ?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET "
                 "identity = excluded.identity, spki = excluded.spki, created_ms = excluded.created_ms",
                 (key_id, identity, spki, now_ms))
        tx.queue("DELETE FROM device_keys WHERE identity = ? AND key_id NOT IN (SELECT key_id FROM device_keys "
                 "WHERE identity = ? ORDER BY created_ms DESC LIMIT ?)", (identity, identity, MAX_PER_IDENTITY))
        return key_id

    def public_key(self, identity: str, key_id: str) -> bytes | None:
        """The SPKI of `key_id` if it is registered for `identity`."""
        if len(key_id) != 64:
            return None
        row = self._db.execute("SELECT spki FROM device_keys WHERE key_id = ? AND identity = ?",
                               (key_id, identity)).fetchone()
        return bytes(row[0]) if row and isinstance(row[0], (bytes, memoryview)) else None

    def verify(self, identity: str, key_id: str, message: bytes, signature_b64: str) -> bool:
        spki = self.public_key(identity, key_id)
        return spki is not None and signature_ok(spki, message, signature_b64)
