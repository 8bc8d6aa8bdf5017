"""Sending calls from a smart account as one UserOperation (issue 32), for the engine's signer.

`send_user_operation` builds the operation (nonce from the EntryPoint, the factory while the
account has no code, fees from the chain, gas from the bundler), has the paymaster sponsor it
when the operator's policy allows, signs it with the owner key (EIP-191 over the v0.7 hash, as
SimpleAccount checks) and sends it; `wait_receipt` follows it to its transaction.
Refusals (`UserOpRefused`) happen before anything is sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from ..core.cmds import FailureKind
from ..core.services import ServiceError
from ..services.backend import jsonrpc
from . import paymaster as pm
from .bundler import BundlerClient, BundlerError, GasEstimate, UserOpReceipt
from .config import SmartAccountsSection, read_signer_key
from .ledger import Charge, SponsorLedger
from .policy import (BudgetSpent, LedgerUnavailable, NotSponsored, NotSponsoredReason, Sponsor, SponsorDecision, SponsorPolicy,
                     SponsorRequest)
from .userop import (Call, MalformedUserOp, UserOperation, counterfactual_address, execute_batch_call_data,
                     execute_call_data, factory_data, user_op_hash)

GET_NONCE = "0x35567e1a"  # EntryPoint.getNonce(address,uint192)
RECEIPT_TIMEOUT_S = 60.0
RECEIPT_POLL_S = 0.1

RefusalReason = Literal["unsupported_chain", "malformed_call", "budget_spent", "ledger_unavailable"]
_REFUSAL_KIND: dict[RefusalReason, FailureKind] = {
    "unsupported_chain": "invalid", "malformed_call": "invalid", "budget_spent": "rejected",
    "ledger_unavailable": "not_sent",  # the budget's store failed: the engine sent nothing
}


class UserOpRefused(ServiceError):
    """Nothing was sent: the chain has no smart accounts, the calls are malformed, or the
    account's sponsored budget for the day is spent (or cannot be read: its store failed)."""

    def __init__(self, reason: RefusalReason, detail: str = "") -> None:
        super().__init__(f"user operation refused: {reason}", _REFUSAL_KIND[reason])
        self.reason: RefusalReason = reason
        self.detail = detail


@dataclass(frozen=True)
class AaChain:
    """One chain's ERC-4337 endpoints and contracts (from `[smart_accounts.chains]`)."""

    caip2: str
    rpc_url: str
    bundler_url: str
    entry_point: str
    factory: str
    paymaster: str | None = None
    paymaster_signer: LocalAccount | None = None

    @property
    def chain_id(self) -> int:
        return int(self.caip2.partition(":")[2])


def chain_of(section: SmartAccountsSection, caip2: str, rpc_url: str | None,
             resolve: Callable[[str], Path] = Path) -> AaChain:
    """The configured chain `caip2` (its RPC from the networks config), else UserOpRefused."""
    entry = section.chains.get(caip2)
    if entry is None or not rpc_url:
        raise UserOpRefused("unsupported_chain", caip2)
    signer = None
    if entry.paymaster and entry.paymaster_signer_key_file:
        signer = Account.from_key(read_signer_key(resolve(entry.paymaster_signer_key_file)))
    return AaChain(caip2, rpc_url, entry.bundler_url, entry.entry_point, entry.factory,
                   entry.paymaster or None, signer)


@dataclass(frozen=True)
class Sponsorship:
    """What the policy decides on: the request's project and method, the day's ledger."""

    policy: SponsorPolicy | None
    ledger: SponsorLedger
    project: str
    method: str
    now_ms: int
    client_address: str = ""  # the visitor's, as the engine sees it (the address budget, issue 38)


@dataclass(frozen=True)
class SentUserOp:
    user_op_hash: str
    sender: str
    user_operation: UserOperation
    sponsored: bool
    not_sponsored: NotSponsoredReason | None  # why the account pays, when it does


def call_data_of(calls: Sequence[Call]) -> bytes:
    """One call: execute; several: executeBatch (all or none). MalformedUserOp when malformed."""
    if len(calls) == 1:
        return execute_call_data(*calls[0])
    return execute_batch_call_data(calls)


def _int(value: object) -> int:
    if isinstance(value, str) and value.startswith("0x"):
        return int(value, 16)
    raise ServiceError("the chain answered out of shape", "upstream")


async def build_user_operation(http: httpx.AsyncClient, chain: AaChain, owner: str, calls: Sequence[Call],
                               *, salt: int = 0) -> tuple[UserOperation, int]:
    """The unsigned operation (dummy signature, no gas yet) and the latest block's timestamp."""
    try:
        call_data = call_data_of(calls)
        sender = counterfactual_address(chain.factory, owner, salt)
        init = factory_data(owner, salt)
    except MalformedUserOp as error:
        raise UserOpRefused("malformed_call", str(error)) from None
    nonce_call = {"to": chain.entry_point, "data": GET_NONCE + bytes(12).hex() + sender[2:].lower() + "00" * 32}
    code, nonce, block, tip = await jsonrpc.batch(http, chain.rpc_url, [
        ("eth_getCode", [sender, "latest"]), ("eth_call", [nonce_call, "latest"]),
        ("eth_getBlockByNumber", ["latest", False]), ("eth_maxPriorityFeePerGas", []),
    ])
    if not isinstance(block, dict):
        raise ServiceError("the chain answered out of shape", "upstream")
    priority = _int(tip)
    deployed = isinstance(code, str) and code not in ("0x", "0x0")
    op = UserOperation(
        sender=sender, nonce=_int(nonce), call_data=call_data,
        factory=None if deployed else chain.factory, factory_data=b"" if deployed else init,
        max_fee_per_gas=2 * _int(block.get("baseFeePerGas")) + priority, max_priority_fee_per_gas=priority,
    )
    return op, _int(block.get("timestamp"))


def _with_gas(op: UserOperation, gas: GasEstimate) -> UserOperation:
    return op.with_(pre_verification_gas=gas.pre_verification_gas, verification_gas_limit=gas.verification_gas_limit,
                    call_gas_limit=gas.call_gas_limit,
                    paymaster_verification_gas_limit=gas.paymaster_verification_gas_limit if op.paymaster else 0,
                    paymaster_post_op_gas_limit=gas.paymaster_post_op_gas_limit if op.paymaster else 0)


def max_cost_wei(op: UserOperation) -> int:
    """The most the operation can be charged (EntryPoint's required prefund)."""
    gas = (op.pre_verification_gas + op.verification_gas_limit + op.call_gas_limit
           + op.paymaster_verification_gas_limit + op.paymaster_post_op_gas_limit)
    return gas * op.max_fee_per_gas


def sign_user_operation(op: UserOperation, owner: LocalAccount, entry_point: str, chain_id: int) -> UserOperation:
    digest = user_op_hash(op, entry_point, chain_id)
    return op.with_(signature=bytes(owner.sign_message(encode_defunct(primitive=digest)).signature))


async def account_nonce(http: httpx.AsyncClient, chain: AaChain, sender: str) -> int:
    """The EntryPoint's next nonce of `sender` (key 0)."""
    call = {"to": chain.entry_point, "data": GET_NONCE + bytes(12).hex() + sender[2:].lower() + "00" * 32}
    return _int(await jsonrpc.call(http, chain.rpc_url, "eth_call", [call, "latest"]))


async def send_user_operation(http: httpx.AsyncClient, chain: AaChain, owner: LocalAccount, calls: Sequence[Call],
                              *, salt: int = 0, sponsorship: Sponsorship | None = None,
                              before_send: Callable[[UserOperation, str], None] | None = None) -> SentUserOp:
    """Build, sponsor where allowed, sign and send; the bundler's hash of the operation.
    `before_send(op, hash)` runs once the operation is signed, before it is sent (the embedded
    wallet records what it sends, embedded/intents.py); what it raises stops the send."""
    bundler = BundlerClient(http, chain.bundler_url)
    op, block_time = await build_user_operation(http, chain, owner.address, calls, salt=salt)
    request = None if sponsorship is None else SponsorRequest(
        sponsorship.project, chain.caip2, sponsorship.method, op.sender, 0, sponsorship.client_address)
    can_sponsor = chain.paymaster is not None and chain.paymaster_signer is not None
    decision: SponsorDecision = NotSponsored("no_policy")
    if request is not None and sponsorship is not None:
        decision = (sponsorship.ledger.preview(sponsorship.policy, request, sponsorship.now_ms)
                    if can_sponsor else NotSponsored("no_paymaster"))
    _refuse_on(decision)
    charge: Charge | None = None
    if isinstance(decision, Sponsor) and chain.paymaster is not None:
        sponsored = _with_gas(pm.with_dummy_paymaster(op, chain.paymaster),
                              await bundler.estimate_user_operation_gas(pm.with_dummy_paymaster(op, chain.paymaster), chain.entry_point))
        assert sponsorship is not None and request is not None
        # the decision and the charge in one transaction: two workers never both spend the last of it
        decision, charge = sponsorship.ledger.reserve(sponsorship.policy, SponsorRequest(
            request.project, request.chain, request.method, request.account, max_cost_wei(sponsored),
            request.client_address), sponsorship.now_ms)
        _refuse_on(decision)
        if isinstance(decision, Sponsor):
            assert chain.paymaster_signer is not None and sponsorship.policy is not None
            op = pm.sign_sponsorship(sponsored, chain.paymaster_signer, chain.chain_id,
                                     valid_until=block_time + sponsorship.policy.valid_for_s)
    try:
        if not isinstance(decision, Sponsor):
            op = _with_gas(op, await bundler.estimate_user_operation_gas(op, chain.entry_point))
        op = sign_user_operation(op, owner, chain.entry_point, chain.chain_id)
        if before_send is not None:
            before_send(op, "0x" + user_op_hash(op, chain.entry_point, chain.chain_id).hex())
        sent_hash = await bundler.send_user_operation(op, chain.entry_point)
    except ServiceError:  # the bundler refused, or the record before sending failed: nothing sent
        if charge is not None and sponsorship is not None:
            sponsorship.ledger.refund(charge)
        raise
    return SentUserOp(sent_hash, op.sender, op, isinstance(decision, Sponsor),
                      decision.reason if isinstance(decision, NotSponsored) else None)


def _refuse_on(decision: SponsorDecision) -> None:
    if isinstance(decision, BudgetSpent):
        raise UserOpRefused("budget_spent")
    if isinstance(decision, LedgerUnavailable):
        raise UserOpRefused("ledger_unavailable")


async def wait_receipt(http: httpx.AsyncClient, chain: AaChain, user_op_hash_hex: str, *,
                       timeout_s: float = RECEIPT_TIMEOUT_S, poll_s: float = RECEIPT_POLL_S) -> UserOpReceipt:
    """The operation's receipt once included (its transaction hash and success); BundlerError
    'timeout' when it is not within `timeout_s`."""
    bundler = BundlerClient(http, chain.bundler_url)
    deadline = time.monotonic() + timeout_s
    while True:
        receipt = await bundler.get_user_operation_receipt(user_op_hash_hex)
        if receipt is not None:
            return receipt
        if time.monotonic() >= deadline:
            raise BundlerError("timeout", "eth_getUserOperationReceipt")
        await asyncio.sleep(poll_s)
