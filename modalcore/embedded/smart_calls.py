"""The embedded smart account's EIP-5792 work behind the engine's services (issue 32 item 4).

- `send_calls`: an approved `wallet_sendCalls` as ONE UserOperation (executeBatch, modalcore/aa:
  sponsored where the operator's policy allows `wallet_sendCalls`, else the account pays),
  answered with the calls id (rules/calls.py: the operation's hash and the chain) as soon as the
  bundler took it; `wallet_getCallsStatus` follows it.
- `calls_status` (`embedded.calls_status`): the bundler's receipt of the operation as EIP-5792's
  status (100 pending, 200 confirmed, 500 reverted) and receipt.
"""

from __future__ import annotations

from typing import Any

from eth_account.signers.local import LocalAccount
from ..aa.bundler import BundlerClient, BundlerError
from ..aa.config import section_of
from ..aa.ledger import SponsorLedger
from ..aa.send import AaChain, Sponsorship, chain_of, send_user_operation
from ..aa.userop import Call, counterfactual_address
from ..rules import calls as rules
from ..rules import texts
from ..core.services import ServiceError
from ..services.domain.handles import CallsStatusArgs, CallsStatusFound
from .intents import Note
from .smart_send import client_address_of, noting

METHOD = "wallet_sendCalls"
NOT_THIS_ACCOUNT = "the request is not from this key's account"


def aa_chain(ctx: object, chain: str) -> AaChain:
    config = getattr(ctx, "config", None)
    if config is None or getattr(ctx, "http", None) is None:
        raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
    network = config.known_networks().get(chain)
    return chain_of(section_of(config.model_extra), chain,
                    network.rpc_urls[0] if network is not None and network.rpc_urls else None, resolve=config.path)


async def send_calls(key: LocalAccount, ctx: Any, params: list[Any], *, chain: str, account: str,
                     ledger: SponsorLedger, note: Note | None = None) -> str:
    batch = rules.parse_send_calls(params, account)
    if isinstance(batch, rules.CallsRefusal):  # the flow checked it before the approval
        raise ServiceError(batch.message, "invalid")
    aa = aa_chain(ctx, chain)
    if aa.chain_id != batch.chain_id:
        raise ServiceError(texts.CHAIN_NOT_SUPPORTED, "invalid")
    if counterfactual_address(aa.factory, key.address).lower() != account.lower():
        raise ServiceError(NOT_THIS_ACCOUNT, "invalid")
    config = ctx.config
    sponsorship = Sponsorship(section_of(config.model_extra).sponsor, ledger, str(getattr(ctx, "project_id", "")),
                              METHOD, int(ctx.clock.now_ms()), client_address_of(ctx))
    calls = [Call(c.to, c.value, bytes.fromhex(c.data[2:])) for c in batch.calls]
    sent = await send_user_operation(ctx.http, aa, key, calls, sponsorship=sponsorship,
                                     before_send=noting(note, "calls"))
    return rules.calls_id(sent.user_op_hash, aa.chain_id)


def _receipt(raw: dict[str, object]) -> dict[str, object]:
    """EIP-5792's receipt from the bundler's: the including transaction, the operation's logs."""
    tx = raw.get("receipt")
    if not isinstance(tx, dict):
        raise BundlerError("malformed_response", "eth_getUserOperationReceipt")
    found = raw.get("logs")
    logs: list[object] = found if isinstance(found, list) else []
    return {
        "logs": [{"address": log.get("address"), "topics": list(log.get("topics") or [])[:rules.MAX_TOPICS],
                  "data": log.get("data", "0x")} for log in logs[:rules.MAX_LOGS] if isinstance(log, dict)],
        "status": "0x1" if raw.get("success") is True else "0x0",
        "blockHash": tx.get("blockHash"), "blockNumber": tx.get("blockNumber"), "gasUsed": tx.get("gasUsed"),
        "transactionHash": tx.get("transactionHash"),
    }


async def calls_status(ctx: Any, args: CallsStatusArgs) -> CallsStatusFound:
    """The shape slices/calls.py CallsStatusResult validates."""
    aa = aa_chain(ctx, args.chain)
    raw = await BundlerClient(ctx.http, aa.bundler_url).request("eth_getUserOperationReceipt", [args.user_op_hash])
    if raw is None:
        return {"status": rules.PENDING, "receipts": []}
    if not isinstance(raw, dict):
        raise BundlerError("malformed_response", "eth_getUserOperationReceipt")
    return {"status": rules.status_of(raw), "receipts": [_receipt(raw)]}
