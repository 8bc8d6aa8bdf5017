"""Verify a signed EIP-4361 message (behaviour.md §4 SIWX; behaviour.md "Signatures": verified on the server).

`verify` checks, in this order: the text parses, the signature is well-formed hex, domain, uri,
chain id and address are the expected ones, the time window (expiration, not-before, issued-at
not in the future), the nonce (issued to this engine session, unused, under 10 minutes old),
then the signature: EOA recovery over the EIP-191 personal message, and when that does not give
the address and the address holds code, EIP-1271 `isValidSignature(bytes32,bytes)` through
`eth_call`; a signature ending in ERC-6492's magic bytes (a smart account not deployed yet,
wrapped with its factory and factory data) goes to the universal validator, run deployless by
`eth_call` (erc6492.py), deployed or not. The nonce is consumed last, atomically, so a failed attempt never burns it and two
racing attempts cannot both succeed. Every failure raises `SiwxVerifyError` with a `reason`
code (see `REASONS`) and a human-readable `detail`.
"""

from __future__ import annotations

import re
from typing import Final

import httpx
from eth_abi.abi import encode as abi_encode
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_utils.crypto import keccak

from ...services.backend.jsonrpc import RpcCallError, call
from .erc6492 import VALIDATOR_CREATION_CODE
from ..domain.grammar import SiwxParseError
from ..domain.message import SignInMessage, SiwxMessage
from .store import NonceStatus, SiwxStore

EIP1271_MAGIC_VALUE: Final = "0x1626ba7e"  # bytes4(keccak256("isValidSignature(bytes32,bytes)"))
CLOCK_SKEW_MS: Final = 5 * 60 * 1000  # an issued-at this far ahead of our clock is refused
ERC6492_MAGIC: Final = bytes.fromhex("64926492" * 8)  # the last 32 bytes of a wrapped signature
SECP256K1_N: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

REASONS: Final[dict[str, str]] = {
    "malformed_message": "The message is not a valid Sign-In with Ethereum message",
    "malformed_signature": "The signature is malformed",
    "wrong_domain": "The message was made for another domain",
    "wrong_uri": "The message was made for another URI",
    "wrong_chain_id": "The message was made for another chain",
    "wrong_address": "The message was signed in for another account",
    "expired": "The message has expired",
    "not_yet_valid": "The message is not valid yet",
    "nonce_unknown": "The nonce was not issued by this server",
    "nonce_used": "The nonce was already used",
    "nonce_expired": "The nonce has expired",
    "nonce_other_session": "The nonce was issued to another session",
    "signature_mismatch": "The signature does not match the message and the account",
    "rpc_unavailable": "The contract wallet signature could not be checked",
}

_NONCE_REASONS: Final = {
    NonceStatus.UNKNOWN: "nonce_unknown",
    NonceStatus.USED: "nonce_used",
    NonceStatus.EXPIRED: "nonce_expired",
    NonceStatus.OTHER_SESSION: "nonce_other_session",
}
_HEX = re.compile(r"^0x(?:[0-9a-fA-F]{2})*$")


class SiwxVerifyError(Exception):
    """A sign-in that must be refused. `reason` is a stable code from `REASONS`."""

    def __init__(self, reason: str, detail: str | None = None) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown reason {reason!r}")
        self.reason = reason
        self.detail = detail or REASONS[reason]
        super().__init__(f"{reason}: {self.detail}")


def personal_message_hash(text: str) -> bytes:
    """EIP-191 version 0x45 hash: keccak256("\\x19Ethereum Signed Message:\\n" + len + text)."""
    data = text.encode("utf-8")
    return keccak(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode() + data)


def signature_bytes(signature: object) -> bytes:
    """0x-prefixed, even-length hex → bytes; SiwxVerifyError(malformed_signature) otherwise."""
    if not isinstance(signature, str) or not _HEX.match(signature) or len(signature) <= 2:
        raise SiwxVerifyError("malformed_signature", "The signature must be 0x-prefixed hex")
    return bytes.fromhex(signature[2:])


def recover_eoa(text: str, signature: bytes) -> str | None:
    """The EIP-55 address that produced a 65-byte r‖s‖v personal_sign signature, or None when
    the bytes are not a usable ECDSA signature (length, v not in 0/1/27/28, r or s out of range,
    high s as refused by EIP-2 and OpenZeppelin's ECDSA)."""
    if len(signature) != 65:
        return None
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:64], "big")
    v = signature[64]
    if v in (0, 1):
        v += 27
    if v not in (27, 28) or not 0 < r < SECP256K1_N or not 0 < s <= SECP256K1_N // 2:
        return None
    try:
        return str(Account.recover_message(encode_defunct(text=text), vrs=(v, r, s)))
    except Exception:  # eth-keys refuses points that are not on the curve
        return None


async def has_code(http: httpx.AsyncClient, rpc_url: str, address: str) -> bool:
    try:
        code = await call(http, rpc_url, "eth_getCode", [address, "latest"])
    except (httpx.HTTPError, RpcCallError, ValueError) as error:
        raise SiwxVerifyError("rpc_unavailable", f"eth_getCode failed: {error}") from None
    return isinstance(code, str) and code not in ("0x", "0x0", "")


async def eip1271_valid(
    http: httpx.AsyncClient, rpc_url: str, address: str, digest: bytes, signature: bytes
) -> bool:
    """True iff `address.isValidSignature(digest, signature)` returns the magic value. A revert
    counts as "not valid"; a node that cannot be reached raises rpc_unavailable."""
    data = EIP1271_MAGIC_VALUE + abi_encode(["bytes32", "bytes"], [digest, signature]).hex()
    try:
        result = await call(http, rpc_url, "eth_call", [{"to": address, "data": data}, "latest"])
    except RpcCallError:
        return False
    except (httpx.HTTPError, ValueError) as error:
        raise SiwxVerifyError("rpc_unavailable", f"eth_call failed: {error}") from None
    return isinstance(result, str) and result.lower().startswith(EIP1271_MAGIC_VALUE)


def is_erc6492(signature: bytes) -> bool:
    return len(signature) > 32 and signature.endswith(ERC6492_MAGIC)


async def erc6492_valid(
    http: httpx.AsyncClient, rpc_url: str, address: str, digest: bytes, signature: bytes
) -> bool:
    """True iff ERC-6492's universal validator, run deployless, accepts `signature` by `address`
    over `digest` (it deploys a counterfactual account inside the call through the wrapped
    factory call, then asks ERC-1271). A revert counts as "not valid"."""
    args = abi_encode(["address", "bytes32", "bytes"], [address, digest, signature])
    data = "0x" + (VALIDATOR_CREATION_CODE + args).hex()
    try:
        result = await call(http, rpc_url, "eth_call", [{"data": data}, "latest"])
    except RpcCallError:
        return False
    except (httpx.HTTPError, ValueError) as error:
        raise SiwxVerifyError("rpc_unavailable", f"eth_call failed: {error}") from None
    return isinstance(result, str) and result.lower() in ("0x01", "0x" + "0" * 63 + "1")


async def check_signature(
    text: str,
    address: str,
    signature: bytes,
    *,
    rpc_url: str | None,
    http: httpx.AsyncClient | None,
) -> None:
    """Return if `signature` by `address` (EOA, EIP-1271 contract, or an ERC-6492 wrapped
    signature of a contract account deployed or not) covers `text`."""
    if is_erc6492(signature):
        if not rpc_url or http is None:
            raise SiwxVerifyError("rpc_unavailable", "An ERC-6492 signature needs the chain's RPC")
        if await erc6492_valid(http, rpc_url, address, personal_message_hash(text), signature):
            return
        raise SiwxVerifyError("signature_mismatch", "The smart account did not accept the signature")
    recovered = recover_eoa(text, signature)
    if recovered is not None and recovered.lower() == address.lower():
        return
    if rpc_url and http is not None and await has_code(http, rpc_url, address):
        if await eip1271_valid(http, rpc_url, address, personal_message_hash(text), signature):
            return
        raise SiwxVerifyError(
            "signature_mismatch", "The contract wallet did not accept the signature"
        )
    if recovered is None:
        raise SiwxVerifyError(
            "malformed_signature", "The signature must be 65 bytes (0x and 130 hex) with v 27 or 28"
        )
    raise SiwxVerifyError(
        "signature_mismatch",
        "The signature was made by another account or the message was changed after signing",
    )


async def verify(
    message_text: str,
    signature: str,
    *,
    expected_domain: str,
    expected_uri: str,
    expected_chain_id: int,
    expected_address: str | None,
    nonce_store: SiwxStore,
    session_key: str,
    now_ms: int,
    rpc_url: str | None = None,
    http: httpx.AsyncClient | None = None,
) -> SiwxMessage:
    """The parsed message of a valid sign-in (its nonce now used); SiwxVerifyError otherwise.

    `expected_address` None accepts any signer address (the signature still has to match the
    address in the message). Without `rpc_url`/`http` only EOA signatures can be accepted.
    """
    try:
        message = SiwxMessage.parse(message_text)
    except SiwxParseError as error:
        raise SiwxVerifyError("malformed_message", f"Malformed message: {error.detail}") from None
    sig = signature_bytes(signature)

    check_origin(message, expected_domain, expected_uri)
    if message.chain_id != expected_chain_id:
        raise SiwxVerifyError(
            "wrong_chain_id",
            f"The message is for chain {message.chain_id}, expected {expected_chain_id}",
        )
    if expected_address is not None and message.account_address.lower() != expected_address.lower():
        raise SiwxVerifyError("wrong_address")
    check_time(message, now_ms)
    await check_nonce(nonce_store, message.nonce, session_key, now_ms)
    await check_signature(message_text, message.account_address, sig, rpc_url=rpc_url, http=http)
    await consume_nonce(nonce_store, message.nonce, session_key, now_ms)
    return message


# -- the checks SIWE and SIWS share ------------------------------------------------------------


def check_origin(message: SignInMessage, expected_domain: str, expected_uri: str) -> None:
    """The message was made for this domain and URI."""
    if message.domain != expected_domain:
        raise SiwxVerifyError(
            "wrong_domain", f"The message is for {message.domain}, expected {expected_domain}"
        )
    if message.uri != expected_uri:
        raise SiwxVerifyError("wrong_uri", f"The message is for {message.uri}, expected {expected_uri}")


def check_time(message: SignInMessage, now_ms: int) -> None:
    """Not expired, past its not-before, and issued at most CLOCK_SKEW_MS ahead of our clock."""
    expires = message.expiration_time_ms
    if expires is not None and now_ms >= expires:
        raise SiwxVerifyError("expired", f"The message expired at {message.expiration_time}")
    not_before = message.not_before_ms
    if not_before is not None and now_ms < not_before:
        raise SiwxVerifyError("not_yet_valid", f"The message is valid from {message.not_before}")
    if message.issued_at_ms > now_ms + CLOCK_SKEW_MS:
        raise SiwxVerifyError("not_yet_valid", f"The message is issued in the future ({message.issued_at})")


async def check_nonce(store: SiwxStore, nonce: str, session_key: str, now_ms: int) -> None:
    """The nonce was issued to this session, is unused and unexpired (it stays unused)."""
    status = await store.check_nonce(nonce, session_key, now_ms)
    if status is not NonceStatus.OK:
        raise SiwxVerifyError(_NONCE_REASONS[status])


async def consume_nonce(store: SiwxStore, nonce: str, session_key: str, now_ms: int) -> None:
    """Use the nonce up, atomically, after the signature was found valid."""
    status = await store.consume_nonce(nonce, session_key, now_ms)
    if status is not NonceStatus.OK:  # lost a race with another attempt
        raise SiwxVerifyError(_NONCE_REASONS[status])
