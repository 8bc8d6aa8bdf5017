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
Ed25519 by the address's key. The nonce and session rules are SIWX's (modalcore/siwx/backend/verify.py):
a nonce issued to this session, unused, unexpired, used up by a valid sign-in only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from ...rules.addresses import solana_key
from .grammar import SiwxMessageError
from .message import SignInMessage, iso_from_ms

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
