"""The did:key Ed25519 JWT a client presents to the relay (relay-client-auth,
crypto-authentication).

The header and payload are compact JSON (as JSON.stringify writes them), base64url without
padding; the signature is Ed25519 over `header.payload`; `iss` is the did:key of the public key
(multicodec 0xed01, base58btc, prefix `z`).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass
from typing import Any

import base58
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

DID_PREFIX = "did:key:"
MULTIBASE_BASE58BTC = "z"
ED25519_MULTICODEC = b"\xed\x01"
HEADER = {"alg": "EdDSA", "typ": "JWT"}
DEFAULT_TTL = 86400


class JwtError(ValueError):
    """A JWT or did:key that does not decode or verify."""


@dataclass(frozen=True)
class ClientIdentity:
    """The relay client's persisted Ed25519 seed (hex) and its did:key client id."""

    seed: str

    @staticmethod
    def generate() -> ClientIdentity:
        return ClientIdentity(os.urandom(32).hex())

    def private_key(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(self.seed))

    @property
    def public_key(self) -> bytes:
        return self.private_key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def client_id(self) -> str:
        return encode_did_key(self.public_key)


def encode_did_key(public_key: bytes) -> str:
    if len(public_key) != 32:
        raise JwtError("an Ed25519 public key is 32 bytes")
    return DID_PREFIX + MULTIBASE_BASE58BTC + base58.b58encode(ED25519_MULTICODEC + public_key).decode("ascii")


def decode_did_key(did: str) -> bytes:
    if not did.startswith(DID_PREFIX + MULTIBASE_BASE58BTC):
        raise JwtError('the issuer must be a did:key in base58btc')
    try:
        raw: bytes = base58.b58decode(did[len(DID_PREFIX) + 1:])
    except ValueError as error:
        raise JwtError("the did:key is not base58") from error
    if raw[:2] != ED25519_MULTICODEC or len(raw) != 34:
        raise JwtError("the did:key is not a 32-byte Ed25519 key")
    return raw[2:]


def sign_jwt(identity: ClientIdentity, *, sub: str, aud: str, iat: int, ttl: int = DEFAULT_TTL,
             act: str | None = None) -> str:
    """A signed JWT with claims in the SDK's order (iss, sub, aud, iat, exp[, act])."""
    payload: dict[str, object] = {"iss": identity.client_id, "sub": sub, "aud": aud, "iat": iat, "exp": iat + ttl}
    if act is not None:
        payload["act"] = act
    data = f"{_b64url_json(HEADER)}.{_b64url_json(payload)}"
    signature = identity.private_key().sign(data.encode("ascii"))
    return f"{data}.{_b64url(signature)}"


@dataclass(frozen=True)
class VerifiedJwt:
    client_id: str
    payload: dict[str, object]


def verify_jwt(token: str, *, now: int | None = None, audience: str | None = None) -> VerifiedJwt:
    """Check the header, the Ed25519 signature against `iss`, and (if given) expiry and audience."""
    parts = token.split(".")
    if len(parts) != 3:
        raise JwtError("a JWT has three parts")
    header, payload = _json_part(parts[0]), _json_part(parts[1])
    if header.get("alg") != "EdDSA" or header.get("typ") != "JWT":
        raise JwtError("the JWT must use EdDSA")
    issuer = payload.get("iss")
    if not isinstance(issuer, str):
        raise JwtError("the JWT has no issuer")
    key = Ed25519PublicKey.from_public_bytes(decode_did_key(issuer))
    try:
        key.verify(_unb64url(parts[2]), f"{parts[0]}.{parts[1]}".encode("ascii"))
    except InvalidSignature as error:
        raise JwtError("the JWT signature does not verify") from error
    exp = payload.get("exp")
    if now is not None and (not isinstance(exp, int) or exp < now):
        raise JwtError("the JWT has expired")
    if audience is not None and payload.get("aud") != audience:
        raise JwtError("the JWT is for another audience")
    return VerifiedJwt(issuer, payload)


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64url_json(value: dict[str, Any]) -> str:
    return _b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def _unb64url(part: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError) as error:
        raise JwtError("a JWT part is not base64url") from error


def _json_part(part: str) -> dict[str, object]:
    try:
        value = json.loads(_unb64url(part))
    except (ValueError, UnicodeDecodeError) as error:
        raise JwtError("a JWT part is not JSON") from error
    if not isinstance(value, dict):
        raise JwtError("a JWT part is not an object")
    return value
