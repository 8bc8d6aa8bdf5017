"""`embedded.userop_check` (issue 43 item 1): before the visitor approves a request from the
embedded key's smart account (eth_sendTransaction or a wallet_sendCalls batch, each one
UserOperation), the chain's bundler simulates the operation the signer would send
(aa/estimate.py): its fee, whether the paymaster would sponsor it, and its revert or refusal
with the bundler's reason. At most `TIMEOUT_S` (the approval's simulation timer is the same
1.5 s); a bundler that is down, slow or answers out of shape is a `ServiceError` (the approval
then says the bundler's check is unavailable, flows/simulation.py).
"""

from __future__ import annotations

import asyncio

from ..aa.config import section_of
from ..aa.estimate import estimate_operation
from ..aa.ledger import SponsorLedger
from ..aa.send import Sponsorship
from ..aa.userop import Call, MalformedUserOp, counterfactual_address
from ..core.services import ServiceContext, ServiceError
from ..rules import texts
from ..services.domain.shapes import UserOpCheckArgs, UserOpChecked
from .smart_calls import NOT_THIS_ACCOUNT, aa_chain
from .smart_send import client_address_of

TIMEOUT_S = 1.5  # issue 43: a simulation never blocks an approval longer


def _calls(args: UserOpCheckArgs) -> list[Call]:
    try:
        return [Call(c.to, int(c.value, 16), bytes.fromhex(c.data[2:])) for c in args.calls]
    except ValueError:
        raise ServiceError("the calls are malformed", "invalid") from None


async def userop_check(ctx: ServiceContext | None, ledger: SponsorLedger, args: UserOpCheckArgs) -> UserOpChecked:
    if ctx is None or ctx.config is None or ctx.http is None:
        raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
    aa = aa_chain(ctx, args.chain)
    try:
        mine = counterfactual_address(aa.factory, args.owner).lower() == args.account.lower()
    except MalformedUserOp:
        mine = False
    if not mine:
        raise ServiceError(NOT_THIS_ACCOUNT, "invalid")
    sponsorship = Sponsorship(section_of(ctx.config.model_extra).sponsor, ledger, ctx.project_id, args.method,
                              ctx.clock.now_ms(), client_address_of(ctx))
    try:
        async with asyncio.timeout(TIMEOUT_S):
            found = await estimate_operation(ctx.http, aa, args.owner, _calls(args), sponsorship=sponsorship,
                                             timeout_s=TIMEOUT_S)
    except TimeoutError:
        raise ServiceError("the bundler did not answer in time", "timeout") from None
    return {"status": found.status, "gas": str(found.gas), "fee": str(found.fee_wei), "sponsored": found.sponsored,
            "reason": found.reason}
