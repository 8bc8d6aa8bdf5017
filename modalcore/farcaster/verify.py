"""The checks on a Farcaster client's answer (FIP-11; what `@farcaster/auth-client`'s
`verifySignInMessage` checks, done here without the hosted relay): the EIP-4361 message with
statement "Farcaster Auth", chain id 10, exactly one `farcaster://fid/N` resource naming the
answer's FID, the channel's nonce, the app's domain (and, for a channel opened for a SIWX
sign-in, its URI), not expired and not before its time; the
signature by the message's address (the custody address, an EOA); and the ID registry's
`idOf(custody) == fid`, read through an RPC.

A refusal is a `Refusal` value naming the check (never text to match on)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

import httpx
from eth_abi.abi import decode
from eth_utils.crypto import keccak

from ..rules.embedded import FARCASTER_STATEMENT
from ..siwx.domain.grammar import SiwxMessageError
from ..siwx.domain.message import SiwxMessage
from ..siwx.backend.verify import SiwxVerifyError, recover_eoa, signature_bytes

STATEMENT = FARCASTER_STATEMENT
CHAIN_ID = 10
RESOURCE = re.compile(r"^farcaster://fid/([1-9][0-9]{0,18})$")
ID_OF = keccak(text="idOf(address)")[:4].hex()


class Refusal(Enum):
    MALFORMED = "malformed"
    STATEMENT = "statement"
    CHAIN = "chain"
    RESOURCE = "resource"
    FID = "fid"
    NONCE = "nonce"
    DOMAIN = "domain"
    URI = "uri"
    EXPIRED = "expired"
    NOT_YET = "not_yet"
    SIGNATURE = "signature"
    CUSTODY = "custody"
    REGISTRY = "registry"
    UNREACHABLE = "registry_unreachable"


@dataclass(frozen=True)
class Expected:
    domain: str
    nonce: str
    uri: str | None = None  # the configured siwe_uri, or a SIWX sign-in's URI; None: not checked


def check_message(text: str, signature: str, fid: int, custody: str, expected: Expected,
                  now_ms: int) -> SiwxMessage | Refusal:
    """Everything but the registry: the message and who signed it."""
    try:
        message = SiwxMessage.parse(text)
        raw = signature_bytes(signature)
    except (SiwxMessageError, SiwxVerifyError):
        return Refusal.MALFORMED
    resources = message.resources or ()
    found = [RESOURCE.match(r) for r in resources]
    if message.statement != STATEMENT:
        return Refusal.STATEMENT
    if message.chain_id != CHAIN_ID:
        return Refusal.CHAIN
    if len(resources) != 1 or found[0] is None:
        return Refusal.RESOURCE
    if int(found[0].group(1)) != fid:
        return Refusal.FID
    if message.nonce != expected.nonce:
        return Refusal.NONCE
    if message.domain != expected.domain:
        return Refusal.DOMAIN
    if expected.uri is not None and message.uri != expected.uri:
        return Refusal.URI
    expiry = message.expiration_time_ms
    if expiry is not None and now_ms >= expiry:
        return Refusal.EXPIRED
    not_before = message.not_before_ms
    if not_before is not None and now_ms < not_before:
        return Refusal.NOT_YET
    signer = recover_eoa(text, raw)
    if signer is None or signer != message.account_address:
        return Refusal.SIGNATURE
    if custody and custody.lower() != signer.lower():
        return Refusal.CUSTODY
    return message


async def registry_fid(http: httpx.AsyncClient, rpc_url: str, registry: str, custody: str) -> int:
    """`IdRegistry.idOf(custody)` (0: no FID). Raises httpx.HTTPError or ValueError."""
    data = "0x" + ID_OF + custody[2:].lower().rjust(64, "0")
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"to": registry, "data": data}, "latest"]}
    response = await http.post(rpc_url, json=body, timeout=10.0)
    response.raise_for_status()
    result = response.json().get("result")
    if not isinstance(result, str) or not result.startswith("0x") or len(result) != 66:
        raise ValueError("idOf answered no uint256")
    (fid,) = decode(["uint256"], bytes.fromhex(result[2:]))
    return int(fid)
