"""Checking a CACAO a wallet returned for `wc_sessionAuthenticate` (modalcore/walletconnect/domain/auth.py
builds the request and reads the result): the requested audience, chain and times, and the
EIP-191 signature recovered to the message's account. Apart from auth.py because recovering a
signature needs eth-account, which the pure core (a flow builds the payload) must not load."""

from __future__ import annotations

from ...siwx.domain.grammar import SiwxMessageError
from ...siwx.domain.message import SiwxMessage, timestamp_ms
from ...siwx.backend.verify import recover_eoa
from ..domain.auth import AuthError, AuthPayload, Cacao, cacao_message, did_parts


def check_cacao(cacao: Cacao, request: AuthPayload, now_ms: int) -> SiwxMessage:
    """The message of a CACAO that answers `request` (`isCacaoBoundToRequest`: domain, nonce,
    aud, a requested chain, not expired, valid already) and whose EIP-191 signature recovers to
    its issuer; AuthError otherwise. EIP-1271 (contract wallet) CACAOs need a chain call: refused
    here."""
    payload = cacao.p
    if cacao.h.t not in ("caip122", "eip4361"):
        raise AuthError(f"unknown cacao type {cacao.h.t[:32]!r}")
    if payload.domain != request.domain:
        raise AuthError(f"domain mismatch: requested {request.domain}, got {payload.domain[:80]}")
    if payload.nonce != request.nonce:
        raise AuthError("nonce mismatch")
    if (payload.aud or payload.uri) != request.aud:
        raise AuthError(f"aud mismatch: requested {request.aud}")
    namespace, chain, _ = did_parts(payload.iss)
    if f"{namespace}:{chain}" not in request.chains:
        raise AuthError(f"cacao issued for chain {namespace}:{chain}, which was not requested")
    message = cacao_message(payload)
    try:
        if payload.exp is not None and timestamp_ms(payload.exp) < now_ms:
            raise AuthError("the cacao has expired")
        if payload.nbf is not None and timestamp_ms(payload.nbf) > now_ms:
            raise AuthError("the cacao is not valid yet")
    except SiwxMessageError as error:
        raise AuthError(f"malformed cacao time ({error.detail})") from None
    if cacao.s.t != "eip191":
        raise AuthError(f"signature type {cacao.s.t[:32]!r} is not accepted")
    text = message.to_text()
    signature = cacao.s.s
    try:
        raw = bytes.fromhex(signature[2:]) if signature.startswith("0x") else b""
    except ValueError:
        raw = b""
    recovered = recover_eoa(text, raw)
    if recovered is None or recovered.lower() != message.account_address.lower():
        raise AuthError("signature verification failed")
    return message
