"""Sign-In with Solana (SIWS): the CAIP-122 message for the solana namespace, and its Ed25519
verification. The same text layout as EIP-4361 with "Solana account", a base58 address and the
cluster's CAIP-2 reference as its Chain ID::

    {domain} wants you to sign in with your Solana account:
    {address}

    {statement}

    URI: {uri}
    Version: 1
    Chain ID: {CAIP-2 reference, e.g. 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp}
    Nonce: {nonce}
    Issued At: {issuedAt}
    Expiration Time: {expirationTime}      (optional)
    Not Before: {notBefore}                (optional)
    Request ID: {requestId}                (optional)
    Resources:                             (optional)
    - {resource}

The wallet signs the UTF-8 bytes of the text (`solana:signMessage`); the signature is 64 bytes of
Ed25519 by the address's key. The nonce and session rules are SIWX's (modalcore/siwx/verify.py):
a nonce issued to this session, unused, unexpired, used up by a valid sign-in only.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ..rules.addresses import solana_key
from .message import SignInMessage, SiwxMessageError, SiwxParseError, iso_from_ms
from .store import SiwxSession, SiwxStore
from .verify import SiwxVerifyError, check_nonce, check_origin, check_time, consume_nonce

_REFERENCE = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{1,32}$")  # a CAIP-2 reference in base58


@dataclass(frozen=True, kw_only=True)
class SiwsMessage(SignInMessage):
    """One SIWS message: SIWE's fields, rules, text and parser (SignInMessage) with a base58
    address and the cluster's CAIP-2 reference as its chain id."""

    HEADER_SUFFIX: ClassVar[str] = " wants you to sign in with your Solana account:"

    address: str
    chain_id: str  # the CAIP-2 reference of the cluster

    @property
    def signer(self) -> str:
        return self.address

    @property
    def chain_reference(self) -> str:
        return self.chain_id

    @property
    def caip2(self) -> str:
        return f"solana:{self.chain_id}"

    def _check_account(self) -> None:
        if not isinstance(self.address, str) or solana_key(self.address) is None:
            raise SiwxMessageError("address must be a base58 Solana public key", "accountAddress")
        if not isinstance(self.chain_id, str) or not _REFERENCE.match(self.chain_id):
            raise SiwxMessageError("chain id must be a CAIP-2 reference", "chainId")

    @classmethod
    def _from_layout(cls, address: str, chain: str, shared: dict[str, Any]) -> SiwsMessage:
        return cls(address=address, chain_id=chain, **shared)

    @classmethod
    def create(cls, *, domain: str, address: str, uri: str, chain_id: str, nonce: str, now_ms: int,
               statement: str | None = None, ttl_ms: int | None = None,
               resources: list[str] | tuple[str, ...] | None = None) -> SiwsMessage:
        return cls(domain=domain, address=address, uri=uri, chain_id=chain_id.removeprefix("solana:"),
                   nonce=nonce, issued_at=iso_from_ms(now_ms), statement=statement,
                   expiration_time=None if ttl_ms is None else iso_from_ms(now_ms + ttl_ms),
                   resources=None if resources is None else tuple(resources))


def signature_bytes(signature: str) -> bytes:
    try:
        raw = base64.b64decode(signature, validate=True)
    except (ValueError, binascii.Error):
        raise SiwxVerifyError("malformed_signature", "The signature must be 64 bytes in base64") from None
    if len(raw) != 64:
        raise SiwxVerifyError("malformed_signature", "The signature must be 64 bytes in base64")
    return raw


def ed25519_valid(address: str, text: str, signature: bytes) -> bool:
    key = solana_key(address)
    if key is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, text.encode("utf-8"))
    except (InvalidSignature, ValueError):
        return False
    return True


async def verify_siws(message_text: str, signature: str, *, expected_domain: str, expected_uri: str,
                      expected_chain: str, expected_address: str | None, nonce_store: SiwxStore,
                      session_key: str, now_ms: int) -> SiwsMessage:
    """The parsed message of a valid sign-in (its nonce now used); SiwxVerifyError otherwise."""
    try:
        message = SiwsMessage.parse(message_text)
    except SiwxParseError as error:
        raise SiwxVerifyError("malformed_message", f"Malformed message: {error.detail}") from None
    raw = signature_bytes(signature)
    check_origin(message, expected_domain, expected_uri)
    if message.caip2 != expected_chain:
        raise SiwxVerifyError("wrong_chain_id", f"The message is for {message.caip2}, expected {expected_chain}")
    if expected_address is not None and message.address != expected_address:
        raise SiwxVerifyError("wrong_address")
    check_time(message, now_ms)
    await check_nonce(nonce_store, message.nonce, session_key, now_ms)
    if not ed25519_valid(message.address, message_text, raw):
        raise SiwxVerifyError("signature_mismatch",
                              "The signature was made by another account or the message was changed after signing")
    await consume_nonce(nonce_store, message.nonce, session_key, now_ms)
    return message


SOLANA_CHAIN_ID = 0  # the store's integer chain column for Solana sessions; data.chainId has the CAIP-2 id


def siws_session(message: SiwsMessage, text: str, signature: str, *, now_ms: int,
                 default_ttl_ms: int) -> SiwxSession:
    """A stored session for a verified SIWS message (the same store as SIWX; its CACAO names the
    signer as did:pkh:solana:... and the signature type solana:ed25519)."""
    return SiwxSession.signed_in(message, text, signature, chain_id=SOLANA_CHAIN_ID, now_ms=now_ms,
                                 signature_type="solana:ed25519", default_ttl_ms=default_ttl_ms)


def is_session_of(session: SiwxSession, address: str, chain: str) -> bool:
    """The store keeps addresses lowercased; a Solana address is case-sensitive."""
    return session.data.get("accountAddress") == address and session.data.get("chainId") == chain
