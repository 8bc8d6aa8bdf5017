"""eth_sendTransaction from the embedded key's smart account (issue 32): one UserOperation,
built and gas-estimated through the chain's bundler, sponsored where the operator's
`[smart_accounts.sponsor]` policy allows (else the account pays), signed by the key, sent and
followed to its receipt (modalcore/aa/send.py). The answer is the transaction hash of that
receipt, so the asking slice and Activity know it by its transaction, as an EOA's send.

Runs only after Approve, once per approved request (flows/approval.py marks it signing first),
like the EOA's send: nothing here retries a send.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from eth_account.signers.local import LocalAccount

from ..aa.config import section_of
from ..aa.ledger import SponsorLedger
from ..aa.send import Sponsorship, chain_of, send_user_operation as send_operation, wait_receipt
from ..aa.userop import Call, UserOperation, counterfactual_address
from ..rules import texts
from ..core.services import ServiceError
from .intents import IntentKind, Note


def client_address_of(ctx: object) -> str:
    """The visitor's address as the engine sees it (behind the configured proxy), "" unknown."""
    address = getattr(ctx, "client_address", None)
    return str(address()) if callable(address) else ""


def noting(note: Note | None, kind: IntentKind) -> Callable[[UserOperation, str], None] | None:
    """What aa/send.py calls before it sends a signed operation: the signer's record of it."""
    if note is None:
        return None
    return lambda op, op_hash: note(kind, op.sender, op.nonce, op_hash, json.dumps(op.to_rpc()))


NOT_THIS_ACCOUNT = "the request is not from this key's account"
SEND_METHOD = "eth_sendTransaction"


def _quantity(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value, 16) if value.startswith("0x") else int(value)
        except ValueError:
            pass
    raise ServiceError("a number is malformed")


def _call(params: list[object]) -> Call:
    tx = params[0] if params else None
    if not isinstance(tx, dict) or not isinstance(tx.get("to"), str) or not tx["to"].startswith("0x"):
        raise ServiceError("eth_sendTransaction needs a 0x-prefixed 'to'")  # behaviour.md §5
    data = tx.get("data") or "0x"
    if not isinstance(data, str) or not data.startswith("0x"):
        raise ServiceError("the transaction's data is malformed")
    try:
        return Call(tx["to"], _quantity(tx.get("value")), bytes.fromhex(data[2:]))
    except ValueError:
        raise ServiceError("the transaction's data is malformed") from None


async def send_user_operation(key: LocalAccount, ctx: Any, params: list[Any], *, chain: str, account: str,
                              ledger: SponsorLedger, note: Note | None = None) -> str:
    config = getattr(ctx, "config", None)
    http = getattr(ctx, "http", None)
    if config is None or http is None:
        raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
    section = section_of(config.model_extra)
    network = config.known_networks().get(chain)
    aa = chain_of(section, chain, network.rpc_urls[0] if network is not None and network.rpc_urls else None,
                  resolve=config.path)
    if counterfactual_address(aa.factory, key.address).lower() != account.lower():
        raise ServiceError(NOT_THIS_ACCOUNT)
    sponsorship = Sponsorship(section.sponsor, ledger, str(getattr(ctx, "project_id", "")), SEND_METHOD,
                              int(ctx.clock.now_ms()), client_address_of(ctx))
    sent = await send_operation(http, aa, key, [_call(params)], sponsorship=sponsorship,
                                before_send=noting(note, "userop"))
    receipt = await wait_receipt(http, aa, sent.user_op_hash)
    return receipt.transaction_hash
