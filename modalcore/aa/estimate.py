"""A smart account's UserOperation as the bundler simulates it, before it is approved (issue 43
item 1): the operation the signer would send (aa/send.py builds it the same way, sponsored where
the operator's policy would sponsor it) estimated with `eth_estimateUserOperationGas`, which runs
it through the EntryPoint: its gas, or the revert of its call phase (ERC-7769 -32521) or the
refusal of the account's or paymaster's validation (-32500, -32501) with the bundler's reason.

Nothing is signed or sent; the sponsorship is previewed, never charged. The fee is the bundler's
gas limits × the block's base fee + the priority fee (what the operation pays per gas; it pays
for the gas it uses, which the bundler's limits estimate closely: on the dev chain a deploying
send paid within 0.1 % of it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import httpx

from . import paymaster as pm
from .bundler import BundlerClient, BundlerError, GasEstimate
from .policy import Sponsor, SponsorRequest
from .send import AaChain, Sponsorship, _with_gas, build_user_operation, max_cost_wei
from .userop import Call, UserOperation

REVERTED = -32521  # ERC-7769 UserOperationReverted: the call phase reverts
REFUSED = (-32500, -32501)  # ERC-7769: the account's validation, the paymaster's
REASON_CHARS = 160
_ERROR_STRING = "08c379a0"  # Error(string)
_PANIC = "4e487b71"  # Panic(uint256)
_HEX = re.compile(r"0x[0-9a-fA-F]{8,}")
_PRINTABLE = re.compile(r"[^\x20-\x7e]")

CheckStatus = Literal["ok", "reverted", "refused"]


@dataclass(frozen=True)
class OpEstimate:
    status: CheckStatus
    gas: int = 0  # the operation's gas limits, all together
    fee_wei: int = 0  # gas × (base fee + tip); 0 when sponsored or not estimated
    sponsored: bool = False
    reason: str = ""


def _decoded(data: str) -> str:
    """Revert data as words: Error(string)'s text, Panic's code, else its selector."""
    body = data[2:]
    try:
        if body.startswith(_ERROR_STRING) and len(body) >= 8 + 128:
            length = int(body[8 + 64:8 + 128], 16)
            raw = bytes.fromhex(body[8 + 128:8 + 128 + 2 * min(length, REASON_CHARS)])
            return raw.decode("utf-8", "replace")
        if body.startswith(_PANIC) and len(body) >= 8 + 64:
            return f"panic 0x{int(body[8:8 + 64], 16):x}"
    except ValueError:
        pass
    return "0x" + body[:8] if body else "no reason given"


def reason_of(message: str) -> str:
    """The bundler's reason, readable and bounded: alto says "UserOperation reverted during
    simulation with reason: X", X being text ("AA21 didn't pay prefund") or revert data. The
    text is only shown; what happened is the error's code."""
    _, found, tail = message.partition("with reason: ")
    text = (tail if found else message).strip()
    text = _HEX.sub(lambda m: _decoded(m.group(0)), text)
    return _PRINTABLE.sub("", text).strip()[:REASON_CHARS] or "no reason given"


def _total(gas: GasEstimate) -> int:
    return (gas.pre_verification_gas + gas.verification_gas_limit + gas.call_gas_limit
            + gas.paymaster_verification_gas_limit + gas.paymaster_post_op_gas_limit)


def _sponsor_request(chain: AaChain, op: UserOperation, sponsorship: Sponsorship, cost: int) -> SponsorRequest:
    return SponsorRequest(sponsorship.project, chain.caip2, sponsorship.method, op.sender, cost,
                          sponsorship.client_address)


def _would_sponsor(chain: AaChain, op: UserOperation, sponsorship: Sponsorship | None, cost: int) -> bool:
    """Whether the send would have the paymaster pay (the ledger previewed, nothing charged)."""
    if sponsorship is None or chain.paymaster is None or chain.paymaster_signer is None:
        return False
    decision = sponsorship.ledger.preview(sponsorship.policy, _sponsor_request(chain, op, sponsorship, cost),
                                          sponsorship.now_ms)
    return isinstance(decision, Sponsor)


async def estimate_operation(http: httpx.AsyncClient, chain: AaChain, owner: str, calls: Sequence[Call], *,
                             sponsorship: Sponsorship | None, timeout_s: float) -> OpEstimate:
    """The bundler's estimate of the operation the signer would send; BundlerError when the
    bundler cannot be asked or answers out of shape (the caller shows that as unavailable)."""
    bundler = BundlerClient(http, chain.bundler_url, timeout_s=timeout_s)
    op, _ = await build_user_operation(http, chain, owner, calls)
    price = (op.max_fee_per_gas + op.max_priority_fee_per_gas) // 2  # build_user_operation: 2 × base + tip
    try:
        if chain.paymaster is not None and _would_sponsor(chain, op, sponsorship, 0):
            asked = pm.with_dummy_paymaster(op, chain.paymaster)
            gas = await bundler.estimate_user_operation_gas(asked, chain.entry_point)
            # the send charges the day's budget with the operation's most: still sponsored then?
            if _would_sponsor(chain, op, sponsorship, max_cost_wei(_with_gas(asked, gas))):
                return OpEstimate("ok", _total(gas), 0, True)
        gas = await bundler.estimate_user_operation_gas(op, chain.entry_point)
    except BundlerError as error:
        if error.reason == "rpc_error" and error.code == REVERTED:
            return OpEstimate("reverted", reason=reason_of(error.detail))
        if error.reason == "rpc_error" and error.code in REFUSED:
            return OpEstimate("refused", reason=reason_of(error.detail))
        raise
    return OpEstimate("ok", _total(gas), _total(gas) * price)
