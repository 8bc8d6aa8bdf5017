"""Verifying a Sign-In with Solana (modalcore/siwx/domain/solana.py has the message): the Ed25519
signature by the address's key over the message's UTF-8 bytes, then SIWX's origin, time and nonce
rules; the session stored for it."""

from __future__ import annotations

import base64
import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ...rules.addresses import solana_key
from ..domain.grammar import SiwxParseError
from ..domain.solana import SiwsMessage
from .store import SiwxSession, SiwxStore
from .verify import SiwxVerifyError, check_nonce, check_origin, check_time, consume_nonce


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
