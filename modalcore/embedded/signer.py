"""`embedded.sign`: the engine's signer for an approved request (issue 15 §3-4).

Runs only after the visitor approved in the engine-origin frame (flows/approval.py asks for it
on `ApprovalDecided`). The key is opened from the vault for this one signature and never leaves
the engine; the result is the signature, or the transaction's hash once the chain accepted it.

- personal_sign [message hex, address]
- eth_signTypedData_v4 [address, typed data (JSON text or object)]
- eth_sendTransaction [{to, value?, data?, gas?}]: nonce, gas and fees from the chain's RPC, an
  EIP-1559 transaction signed here and sent with eth_sendRawTransaction. Only configured chains.
- from the key's smart account (issue 32): a signature the account's ERC-1271 accepts, wrapped
  per ERC-6492 while it is not deployed (smart_sign.py); eth_sendTransaction and
  wallet_sendCalls (EIP-5792) as one UserOperation (smart_send.py, smart_calls.py).
  From the key's smart account (`account`, issue 32): one UserOperation (smart_send.py), the
  answer its receipt's transaction hash.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from eth_account.messages import encode_defunct, encode_typed_data
from eth_account.signers.local import LocalAccount
from eth_typing import HexStr
from eth_utils.address import to_checksum_address

from ..aa.ledger import SponsorLedger, memory_ledger
from ..rules import texts
from ..core.services import ServiceError
from ..services.backend import jsonrpc
from .intents import IntentKind, IntentNotRecorded, Note, SendIntent, SendIntents
from .keys import Identity, KeyVault
from .smart_calls import send_calls
from .smart_send import send_user_operation
from .smart_sign import account_signature


NOT_RECORDED = "Not sent: the wallet could not record the transaction first"


def identity_of(text: str) -> Identity:
    kind, _, subject = text.partition(":")
    try:
        return Identity(kind, subject)
    except ValueError:
        raise ServiceError("no signed-in identity") from None


def _hex(value: object, default: int = 0) -> int:
    if value is None:
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value, 16) if value.startswith("0x") else int(value)
    raise ServiceError("a number is malformed")


def _sign_personal(account: LocalAccount, params: list[object]) -> str:
    message = params[0] if params else None
    if not isinstance(message, str):
        raise ServiceError("personal_sign needs a message")
    signable = encode_defunct(hexstr=message) if message.startswith("0x") else encode_defunct(text=message)
    return "0x" + account.sign_message(signable).signature.hex().removeprefix("0x")


def _sign_typed(account: LocalAccount, params: list[object]) -> str:
    data = params[1] if len(params) > 1 else None
    if isinstance(data, str):
        data = json.loads(data)
    if not isinstance(data, dict):
        raise ServiceError("eth_signTypedData_v4 needs typed data")
    signable = encode_typed_data(full_message=data)
    return "0x" + account.sign_message(signable).signature.hex().removeprefix("0x")


async def _send(account: LocalAccount, params: list[object], rpc_url: str, chain_id: int,
                http: httpx.AsyncClient, note: Note | None = None) -> str:
    tx = params[0] if params else None
    if not isinstance(tx, dict) or not isinstance(tx.get("to"), str) or not tx["to"].startswith("0x"):
        raise ServiceError("eth_sendTransaction needs a 0x-prefixed 'to'")  # behaviour.md §5
    try:
        to = to_checksum_address(tx["to"])
    except ValueError:
        raise ServiceError("eth_sendTransaction needs a 0x-prefixed 'to'") from None
    base = {"from": account.address, "to": to, "value": hex(_hex(tx.get("value"))),
            "data": tx.get("data") or "0x"}
    nonce, gas, block, tip = await jsonrpc.batch(http, rpc_url, [
        ("eth_getTransactionCount", [account.address, "pending"]),
        ("eth_estimateGas", [base]),
        ("eth_getBlockByNumber", ["latest", False]),
        ("eth_maxPriorityFeePerGas", []),
    ])
    base_fee = _hex(block.get("baseFeePerGas") if isinstance(block, dict) else None)
    priority = _hex(tip)
    data = HexStr(str(base["data"]))
    signed = account.sign_transaction({
        "type": 2, "chainId": chain_id, "nonce": _hex(nonce), "to": to,
        "value": _hex(tx.get("value")), "data": data, "gas": _hex(tx.get("gas"), _hex(gas)),
        "maxPriorityFeePerGas": priority, "maxFeePerGas": 2 * base_fee + priority,
    })
    raw = "0x" + signed.raw_transaction.hex().removeprefix("0x")
    if note is not None:  # recorded before it leaves: a restarted engine looks it up (intents.py)
        note("tx", account.address, _hex(nonce), "0x" + signed.hash.hex().removeprefix("0x"), raw)
    result = await jsonrpc.call(http, rpc_url, "eth_sendRawTransaction", [raw])
    if not isinstance(result, str):
        raise ServiceError("the chain returned no transaction hash")
    return result


def sign_text(vault: KeyVault, identity: Identity, text: str) -> str:
    """personal_sign of `text` by the identity's key: only for a sign-in the visitor approved in
    their Farcaster client (farcaster/one_approval.py checks the message first)."""
    return _sign_personal(vault.account(identity), ["0x" + text.encode().hex()])


def noter(intents: SendIntents | None, ctx: Any, request: str, chain: str) -> Note | None:
    """How the signer records what it is about to broadcast for the request `request` of the
    context's session (issue 38): a record that cannot be written stops the send."""
    if intents is None or not request:
        return None
    session = str(getattr(ctx, "session_id", ""))
    now = int(ctx.clock.now_ms()) if getattr(ctx, "clock", None) is not None else 0

    def note(kind: IntentKind, sender: str, nonce: int, sent_hash: str, payload: str) -> None:
        try:
            intents.record(SendIntent(session, request, kind, chain, sender, nonce, sent_hash, payload, now))
        except IntentNotRecorded:
            raise ServiceError(NOT_RECORDED, "not_sent") from None
    return note


async def sign(vault: KeyVault, ctx: object, *, identity: str, method: str, params: str, chain: str,
               account: str = "", ledger: SponsorLedger | None = None, intents: SendIntents | None = None,
               request: str = "") -> dict[str, str]:
    """`account`: the address the request is from ("" or the key's own: the EOA; the key's smart
    account on `chain`: one UserOperation, issue 32). `intents`/`request`: where a send is
    recorded before it is broadcast, and the request (effect id) it answers (issue 38)."""
    note = noter(intents, ctx, request, chain)
    try:
        parsed = json.loads(params)
    except ValueError:
        raise ServiceError("the request's params are malformed") from None
    if not isinstance(parsed, list):
        raise ServiceError("the request's params are malformed")
    key = vault.account(identity_of(identity))
    smart = bool(account) and account.lower() != key.address.lower()
    if method in ("personal_sign", "eth_signTypedData_v4"):
        signature = _sign_personal(key, parsed) if method == "personal_sign" else _sign_typed(key, parsed)
        if smart:  # ERC-1271 once deployed, ERC-6492 before (issue 32 item 5)
            signature = await account_signature(ctx, chain=chain, owner=key.address, account=account,
                                                signature=signature)
        return {"result": signature}
    if method == "wallet_sendCalls":  # EIP-5792: only the smart account batches (flows/calls.py)
        if not smart:
            raise ServiceError(texts.RPC_CALL_NOT_ALLOWED)
        return {"result": await send_calls(key, ctx, parsed, chain=chain, account=account,
                                           ledger=ledger if ledger is not None else memory_ledger(), note=note)}
    if method == "eth_sendTransaction":
        config = getattr(ctx, "config", None)
        http = getattr(ctx, "http", None)
        network = config.known_networks().get(chain) if config is not None else None
        if network is None or not network.rpc_urls or http is None or network.namespace != "eip155":
            raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
        if smart:
            return {"result": await send_user_operation(key, ctx, parsed, chain=chain, account=account,
                                                        ledger=ledger if ledger is not None else memory_ledger(),
                                                        note=note)}
        try:
            return {"result": await _send(key, parsed, network.rpc_urls[0], int(network.reference), http, note)}
        except jsonrpc.RpcCallError as error:
            raise ServiceError(str(error)) from None
    raise ServiceError(texts.RPC_CALL_NOT_ALLOWED)
