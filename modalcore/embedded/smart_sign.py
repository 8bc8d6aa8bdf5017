"""personal_sign / eth_signTypedData_v4 from the embedded key's smart account (issue 32 item 5).

ModalSmartAccount's ERC-1271 `isValidSignature(hash, signature)` accepts the owner key's ECDSA
signature of the hash itself (chain/contracts/aa/ModalSmartAccount.sol), and the hash a verifier
asks about is the message's EIP-191 (or EIP-712) digest: the key's own signature is the
account's once it is deployed. Before its first operation the account has no code, so the
signature is wrapped per ERC-6492 with the factory and its createAccount call; verifiers
(viem's verifyMessage, the engine's SIWX verifier) run the universal validator deployless.
"""

from __future__ import annotations

from typing import Any

from ..aa.userop import counterfactual_address, factory_data, wrap_6492
from ..core.services import ServiceError
from ..services.backend import jsonrpc
from .smart_calls import aa_chain

NOT_THIS_ACCOUNT = "the request is not from this key's account"


async def account_signature(ctx: Any, *, chain: str, owner: str, account: str, signature: str) -> str:
    """The smart account `account`'s signature from its owner's `signature`: as it is once the
    account is deployed, ERC-6492-wrapped before."""
    aa = aa_chain(ctx, chain)
    if counterfactual_address(aa.factory, owner).lower() != account.lower():
        raise ServiceError(NOT_THIS_ACCOUNT, "invalid")
    try:
        code = await jsonrpc.call(ctx.http, aa.rpc_url, "eth_getCode", [account, "latest"])
    except (jsonrpc.RpcCallError, OSError, ValueError) as error:
        raise ServiceError(f"the chain could not be read: {error}", "upstream") from None
    if isinstance(code, str) and code not in ("", "0x", "0x0"):
        return signature
    wrapped = wrap_6492(aa.factory, factory_data(owner), bytes.fromhex(signature.removeprefix("0x")))
    return "0x" + wrapped.hex()
