"""Signed chain heads: what anchors each session's audit log (issue 31).

A hash chain alone shows an entry edited or removed from the middle, not its last entries cut
off, nor the whole chain written again with fresh hashes. So the engine signs, with its key (the
secp256k1 key of `[siwx] key_file`, whose address `GET /v1/engine` gives), the head (last seq and
hash) of every session whose log grew: at most once per `SIGN_INTERVAL_MS` per process, one
signature over all those heads (`signer.py`). One such signed set:

    body = canonical JSON {"v": 1, "worker": w, "n": n, "at": ms, "prev": sha256 of the body of
           (w, n - 1) or 64 zeros, "signer": engine address, "heads": [[session, seq, hash], ...]}
    digest = sha256(body) as hex
    signature = EIP-191 personal_sign of the text `digest` by the engine key (0x + 130 hex)

A process's sets form a chain of their own (`worker` is the process, `n` counts from 1): a set
deleted from the middle shows. Anyone verifies a set offline with eth-account:
`Account.recover_message(encode_defunct(text=sha256(body).hexdigest()), signature=...)` is the
engine's address.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.messages import defunct_hash_message, encode_defunct
from eth_account.signers.local import LocalAccount
from eth_keys.datatypes import Signature as EthSignature
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

from ..ledger.chain import GENESIS, SignedHeads, canonical, digest

VERSION = 1
MAX_HEADS_PER_SIGNATURE = 1000  # a body stays under ~150 KB; more wait for the next signature


@dataclass(frozen=True)
class Head:
    session_id: str
    seq: int
    hash: str


@dataclass(frozen=True)
class HeadsBody:
    """A set's body, read back."""

    worker: str
    n: int
    at: int
    prev: str
    signer: str
    heads: tuple[Head, ...]


class UnreadableHeads(ValueError):
    """A stored body that is not a signed-heads body (typed: `verify` reports it, never raises)."""


def make_body(worker: str, n: int, at: int, prev: str, signer: str, heads: list[Head]) -> bytes:
    return canonical({"v": VERSION, "worker": worker, "n": n, "at": at, "prev": prev,
                      "signer": signer,
                      "heads": [[h.session_id, h.seq, h.hash] for h in heads]})


def sign(key: LocalAccount, body: bytes) -> str:
    """The engine key's EIP-191 signature of the body's sha256 (hex text)."""
    signed = key.sign_message(encode_defunct(text=digest(body)))
    return "0x" + bytes(signed.signature).hex()


def read_body(body: bytes) -> HeadsBody:
    try:
        value: Any = json.loads(body)
        heads = tuple(Head(str(s), int(q), str(h)) for s, q, h in value["heads"])
        return HeadsBody(str(value["worker"]), int(value["n"]), int(value["at"]),
                         str(value["prev"]), str(value["signer"]), heads)
    except (ValueError, KeyError, TypeError) as error:
        raise UnreadableHeads(f"not a signed-heads body: {type(error).__name__}") from None


class SignatureCheck:
    """Whether a signature is the engine's. The public key is recovered once (eth-keys, tens of
    ms in pure Python) and checked against the engine's address; each later signature is
    checked against that key with OpenSSL (`cryptography`, ~1 ms; eth-keys' own verify is ~40),
    so `audit verify` over a day of once-a-second sets stays within minutes."""

    def __init__(self, address: str) -> None:
        self.address = address.lower()
        self._public: ec.EllipticCurvePublicKey | None = None

    def holds(self, body: bytes, signature: str) -> bool:
        try:
            raw = bytes.fromhex(signature.removeprefix("0x"))
        except ValueError:
            return False
        if len(raw) != 65 or raw[64] not in (0, 1, 27, 28):
            return False
        message_hash = bytes(defunct_hash_message(text=digest(body)))
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:64], "big")
        if self._public is None:
            try:
                recovered = EthSignature(vrs=(raw[64] % 27, r, s)).recover_public_key_from_msg_hash(
                    message_hash)
            except Exception:  # eth-keys raises several types for a malformed signature
                return False
            if recovered.to_checksum_address().lower() != self.address:
                return False
            self._public = ec.EllipticCurvePublicKey.from_encoded_point(
                ec.SECP256K1(), b"\x04" + recovered.to_bytes())
            return True
        try:
            self._public.verify(encode_dss_signature(r, s), message_hash,
                                ec.ECDSA(Prehashed(hashes.SHA256())))  # any 32-byte digest
        except (InvalidSignature, ValueError):
            return False
        return True


def recover_signer(body: bytes, signature: str) -> str:
    """The address that signed (for messages; `SignatureCheck` is the fast path)."""
    return str(Account.recover_message(encode_defunct(text=digest(body)), signature=signature))


__all__ = ["GENESIS", "MAX_HEADS_PER_SIGNATURE", "Head", "HeadsBody", "SignatureCheck",
           "SignedHeads", "UnreadableHeads", "make_body", "read_body", "recover_signer", "sign"]
