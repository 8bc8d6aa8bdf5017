"""SIWX session tokens a host's backend can verify offline, with nothing but eth-account.

Format: ``<payload_b64>.<signature_hex>``

- ``payload_b64``: base64url (no padding) of compact JSON with sorted keys
  ``{"address": EIP-55 address, "chainId": int, "domain": str, "exp": unix s, "iat": unix s,
  "sid": session id}``. ``sid`` is the SIWX session's id (the ``pci`` of behaviour.md §7's revoke call).
- ``signature_hex``: 0x + 130 hex, the engine key's EIP-191 personal_sign signature over the
  ``payload_b64`` text itself (``sign_message(encode_defunct(text=payload_b64))``).

The engine's key is a secp256k1 key kept in a file (``load_or_create_key``); give hosts its
address. Verifying on a host backend (check the domain: one engine may serve several sites)::

    import base64, json, time
    from eth_account import Account
    from eth_account.messages import encode_defunct

    def check_siwx_token(token: str, engine_address: str, my_domain: str) -> dict:
        payload_b64, signature = token.split(".")
        signer = Account.recover_message(encode_defunct(text=payload_b64), signature=signature)
        claims = json.loads(base64.urlsafe_b64decode(payload_b64 + "=" * (-len(payload_b64) % 4)))
        if signer != engine_address or claims["domain"] != my_domain or claims["exp"] <= time.time():
            raise PermissionError("invalid SIWX token")
        return claims  # {"address", "chainId", "domain", "iat", "exp", "sid"}

A token stays valid until ``exp`` even if its session is revoked; a host that must honour
revocation at once asks ``GET /v1/sessions/{address}`` whether ``sid`` is still listed.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from pathlib import Path
from typing import Any

from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from ...keyfiles import create_once, read_private

TOKEN_CLOCK_SKEW_S = 300
_TOKEN = re.compile(r"^([A-Za-z0-9_-]+)\.(0x[0-9a-fA-F]{130})$")
_KEY = re.compile(r"^(0x)?[0-9a-fA-F]{64}$")
_CLAIMS = {"address": str, "chainId": int, "domain": str, "iat": int, "exp": int, "sid": str}


class TokenError(ValueError):
    """A SIWX token that is malformed, not signed by the engine, or expired."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def load_or_create_key(path: str | Path) -> LocalAccount:
    """The engine's signing key from `path` (a 0x-hex private key); a new random key is created
    there (mode 0600, never overwritten) on first use."""
    path = Path(path)
    if not path.exists():
        create_once(path, "0x" + bytes(Account.create().key).hex())
    text = read_private(path)
    if not _KEY.match(text):
        raise ValueError(f"{path} does not hold a 32-byte hex private key")
    loaded: LocalAccount = Account.from_key(text)
    return loaded


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def issue_token(
    signer: LocalAccount,
    *,
    address: str,
    chain_id: int,
    domain: str,
    sid: str,
    iat: int,
    exp: int,
) -> str:
    """A token for one SIWX session; `iat` and `exp` are unix seconds."""
    claims = {"address": address, "chainId": chain_id, "domain": domain, "iat": iat, "exp": exp, "sid": sid}
    payload_b64 = _b64encode(json.dumps(claims, sort_keys=True, separators=(",", ":")).encode())
    signed = signer.sign_message(encode_defunct(text=payload_b64))
    return f"{payload_b64}.0x{bytes(signed.signature).hex()}"


def decode_token(token: str) -> tuple[str, str, dict[str, Any]]:
    """(payload_b64, signature, claims) of a well-formed token, without checking the signer."""
    match = _TOKEN.match(token) if isinstance(token, str) else None
    if not match:
        raise TokenError("malformed token")
    payload_b64, signature = match.groups()
    try:
        claims = json.loads(_b64decode(payload_b64))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise TokenError("malformed token payload") from None
    if not isinstance(claims, dict) or set(claims) != set(_CLAIMS):
        raise TokenError("malformed token payload")
    for key, kind in _CLAIMS.items():
        if not isinstance(claims[key], kind) or isinstance(claims[key], bool):
            raise TokenError(f"malformed token claim {key}")
    return payload_b64, signature, claims


def verify_token(token: str, engine_address: str, now_s: float) -> dict[str, Any]:
    """The claims of a token signed by `engine_address` and unexpired at `now_s` (unix
    seconds); TokenError otherwise. Callers still compare `domain` (and `address`)."""
    payload_b64, signature, claims = decode_token(token)
    try:
        signer = Account.recover_message(encode_defunct(text=payload_b64), signature=signature)
    except Exception:
        raise TokenError("bad token signature") from None
    if signer.lower() != engine_address.lower():
        raise TokenError("token not signed by the engine")
    if claims["exp"] <= now_s:
        raise TokenError("token expired")
    if claims["iat"] > now_s + TOKEN_CLOCK_SKEW_S:
        raise TokenError("token issued in the future")
    return claims
