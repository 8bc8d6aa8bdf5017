"""`embedded.resolve` (issue 38 item 6): the outcome of an approved request whose signer's answer
was lost with its process (a kill, a crash, a worker takeover), looked up before anything is
called lost. Asked by a restored session that was signing (flows/approval.py).

- A signature (personal_sign, eth_signTypedData_v4): nothing moved; the same key signs the same
  bytes again (deterministic signatures: the same answer the lost one would have been).
- A send: the record the signer wrote before broadcasting (intents.py).
  - No record: nothing was broadcast. A typed failure (`not_sent`): the request ends, the
    visitor may ask again; it is never re-run by itself.
  - A transaction: known to the chain (pending or mined) -> its hash. Unknown, and the sender's
    nonce moved past it -> that nonce went to another transaction: failed (`rejected`).
    Unknown, nonce unchanged -> the same signed bytes are broadcast again (same nonce, same
    hash: at most once) -> its hash.
  - A UserOperation: the bundler's receipt -> its transaction hash (or, for wallet_sendCalls,
    the calls id). Unknown to the bundler and the EntryPoint's nonce moved past it -> failed.
    Unknown, nonce unchanged -> the same signed operation is sent again (the EntryPoint runs a
    nonce once) and followed to its receipt.
"""

from __future__ import annotations

import json
from typing import Any

from ..aa.bundler import BundlerClient, BundlerError
from ..aa.send import account_nonce, wait_receipt
from ..aa.userop import UserOperation
from ..core.services import ServiceError
from ..rules import calls as rules
from ..rules import texts
from ..services.backend import jsonrpc
from .intents import IntentNotRecorded, SendIntent, SendIntents
from .keys import KeyVault
from .signer import sign
from .smart_calls import aa_chain

SIGNATURES = ("personal_sign", "eth_signTypedData_v4")
NOT_SENT = "Not sent: the wallet stopped before sending it. Nothing left your account"
REPLACED = "Not sent: another transaction from this account took its place"


def _quantity(value: object) -> int:
    if isinstance(value, str) and value.startswith("0x"):
        return int(value, 16)
    raise ServiceError("the chain answered out of shape", "upstream")


async def _transaction(ctx: object, intent: SendIntent) -> str:
    config, http = getattr(ctx, "config", None), getattr(ctx, "http", None)
    network = config.known_networks().get(intent.chain) if config is not None else None
    if network is None or not network.rpc_urls or http is None:
        raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
    rpc = network.rpc_urls[0]
    if await jsonrpc.call(http, rpc, "eth_getTransactionByHash", [intent.hash]) is not None:
        return intent.hash  # pending or mined: it was sent, once
    pending = _quantity(await jsonrpc.call(http, rpc, "eth_getTransactionCount", [intent.sender, "pending"]))
    if pending > intent.nonce:
        raise ServiceError(REPLACED, "rejected")
    try:
        await jsonrpc.call(http, rpc, "eth_sendRawTransaction", [intent.payload])
    except jsonrpc.RpcCallError:
        # another process may have sent the very same bytes meanwhile ("already known")
        if await jsonrpc.call(http, rpc, "eth_getTransactionByHash", [intent.hash]) is None:
            raise
    return intent.hash


async def _operation(ctx: Any, intent: SendIntent) -> str:
    aa = aa_chain(ctx, intent.chain)
    bundler = BundlerClient(ctx.http, aa.bundler_url)
    known = await bundler.get_user_operation_receipt(intent.hash) is not None
    if not known:
        try:
            known = await bundler.request("eth_getUserOperationByHash", [intent.hash]) is not None
        except BundlerError:
            known = False
    if not known:
        if await account_nonce(ctx.http, aa, intent.sender) > intent.nonce:
            raise ServiceError(REPLACED, "rejected")
        await bundler.send_user_operation(UserOperation.from_rpc(json.loads(intent.payload)), aa.entry_point)
    if intent.kind == "calls":  # answered as soon as the bundler has it; its status follows it
        return rules.calls_id(intent.hash, aa.chain_id)
    return (await wait_receipt(ctx.http, aa, intent.hash)).transaction_hash


async def resolve(vault: KeyVault, ctx: object, intents: SendIntents, *, identity: str, method: str, params: str,
                  chain: str, account: str, request: str) -> dict[str, str]:
    """The lost answer of the approved request `request` of the context's session: `{"result"}`,
    or a ServiceError (`not_sent`: nothing was broadcast; `rejected`: its nonce went elsewhere)."""
    if method in SIGNATURES:
        return await sign(vault, ctx, identity=identity, method=method, params=params, chain=chain, account=account)
    try:
        intent = intents.get(str(getattr(ctx, "session_id", "")), request) if request else None
    except IntentNotRecorded:
        raise ServiceError("the wallet's records cannot be read", "upstream") from None
    if intent is None:
        raise ServiceError(NOT_SENT, "not_sent")
    try:
        if intent.kind == "tx":
            return {"result": await _transaction(ctx, intent)}
        return {"result": await _operation(ctx, intent)}
    except jsonrpc.RpcCallError as error:
        raise ServiceError(str(error), "upstream") from None
