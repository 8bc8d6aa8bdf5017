"""WalletConnect state encrypted at rest with the operator's secret.

AES-256-GCM under a key derived from the secret by HKDF-SHA256 (its own `info`, so the key is
used for nothing else); a random 96-bit nonce per write; the store key (`wc:<session id>`) is
the associated data, so a blob copied under another session's key does not open.
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VERSION = b"\x01"
INFO = b"modalcore walletconnect state at rest v1"


class SealedStateError(ValueError):
    """A stored blob that does not open with this secret (wrong secret, altered, truncated)."""


def derive_key(secret: bytes) -> bytes:
    if not secret:
        raise ValueError("an empty operator secret")
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(secret)


def seal_state(key: bytes, name: str, plaintext: bytes) -> bytes:
    nonce = os.urandom(12)
    return VERSION + nonce + AESGCM(key).encrypt(nonce, plaintext, name.encode())


def open_state(key: bytes, name: str, blob: bytes) -> bytes:
    if len(blob) < 1 + 12 + 16 or blob[:1] != VERSION:
        raise SealedStateError("not a sealed WalletConnect state")
    try:
        return AESGCM(key).decrypt(blob[1:13], blob[13:], name.encode())
    except InvalidTag as error:
        raise SealedStateError("the sealed state does not open with this secret") from error
