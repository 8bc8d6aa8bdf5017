"""Keys, topics and typed envelopes (walletconnect-specs: crypto-keys, crypto-envelopes).

As the SDK does: a session key is HKDF-SHA256 of the X25519 shared secret with no salt and no
info, 32 bytes; a topic is sha256 of the key bytes, hex; an envelope is ChaCha20-Poly1305 with a
12-byte random IV and no associated data, serialised in standard base64.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

KEY_LENGTH = 32
IV_LENGTH = 12
TAG_LENGTH = 16
TYPE_0 = 0
TYPE_1 = 1


class EnvelopeError(ValueError):
    """A message that is not a well-formed envelope, or that does not open with the key."""


@dataclass(frozen=True)
class KeyPair:
    """An X25519 key pair, both halves as lowercase hex (as the SDK stores them)."""

    private_key: str
    public_key: str

    @staticmethod
    def generate() -> KeyPair:
        return KeyPair.from_private(os.urandom(KEY_LENGTH).hex())

    @staticmethod
    def from_private(private_hex: str) -> KeyPair:
        private = X25519PrivateKey.from_private_bytes(_key_bytes(private_hex))
        public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return KeyPair(private_hex.lower(), public.hex())


def generate_sym_key() -> str:
    """A random 32-byte symmetric key (pairings), hex."""
    return os.urandom(KEY_LENGTH).hex()


def derive_sym_key(private_hex: str, peer_public_hex: str) -> str:
    """The session key both peers agree on: HKDF-SHA256(X25519(private, peer public)), hex."""
    private = X25519PrivateKey.from_private_bytes(_key_bytes(private_hex))
    shared = private.exchange(X25519PublicKey.from_public_bytes(_key_bytes(peer_public_hex)))
    hkdf = HKDF(algorithm=hashes.SHA256(), length=KEY_LENGTH, salt=None, info=None)
    return hkdf.derive(shared).hex()


def topic_of(key_hex: str) -> str:
    """The relay topic of a symmetric key: sha256 of the key bytes, hex."""
    return hashlib.sha256(_key_bytes(key_hex)).hexdigest()


def seal(plaintext: str, sym_key_hex: str, *, iv: bytes | None = None,
         sender_public_hex: str | None = None) -> str:
    """A type 0 envelope (or type 1 with `sender_public_hex`), standard base64."""
    nonce = os.urandom(IV_LENGTH) if iv is None else iv
    if len(nonce) != IV_LENGTH:
        raise EnvelopeError("the IV must be 12 bytes")
    sealed = ChaCha20Poly1305(_key_bytes(sym_key_hex)).encrypt(nonce, plaintext.encode("utf-8"), None)
    if sender_public_hex is None:
        head = bytes([TYPE_0])
    else:
        head = bytes([TYPE_1]) + _key_bytes(sender_public_hex)
    return base64.b64encode(head + nonce + sealed).decode("ascii")


@dataclass(frozen=True)
class Envelope:
    """A decoded (still sealed) envelope."""

    type: int
    iv: bytes
    sealed: bytes
    sender_public_key: str | None = None


def decode_envelope(message: str) -> Envelope:
    """Split a serialised envelope into its parts (no key needed)."""
    try:
        raw = base64.b64decode(message.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as error:
        raise EnvelopeError("not base64") from error
    if not raw:
        raise EnvelopeError("empty envelope")
    kind = raw[0]
    if kind == TYPE_0:
        body, sender = raw[1:], None
    elif kind == TYPE_1:
        if len(raw) < 1 + KEY_LENGTH:
            raise EnvelopeError("type 1 envelope too short")
        body, sender = raw[1 + KEY_LENGTH:], raw[1:1 + KEY_LENGTH].hex()
    else:
        raise EnvelopeError(f"unknown envelope type {kind}")
    if len(body) < IV_LENGTH + TAG_LENGTH:
        raise EnvelopeError("envelope too short")
    return Envelope(kind, body[:IV_LENGTH], body[IV_LENGTH:], sender)


def open_envelope(envelope: Envelope, sym_key_hex: str) -> str:
    """The plaintext of an envelope, or EnvelopeError if the key does not open it."""
    try:
        plain = ChaCha20Poly1305(_key_bytes(sym_key_hex)).decrypt(envelope.iv, envelope.sealed, None)
        return plain.decode("utf-8")
    except (InvalidTag, UnicodeDecodeError) as error:
        raise EnvelopeError("the envelope does not open with this key") from error


def unseal(message: str, sym_key_hex: str) -> str:
    """decode_envelope + open_envelope for a type 0 message."""
    return open_envelope(decode_envelope(message), sym_key_hex)


def _key_bytes(key_hex: str) -> bytes:
    try:
        raw = bytes.fromhex(key_hex)
    except ValueError as error:
        raise EnvelopeError("a key must be hex") from error
    if len(raw) != KEY_LENGTH:
        raise EnvelopeError("a key must be 32 bytes")
    return raw
