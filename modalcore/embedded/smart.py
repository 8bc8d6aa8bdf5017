"""`embedded.smart_accounts` (issue 32): the signed-in key's ERC-4337 smart account on the asked
chains, for the session's account types (slices/smart_account.py).

Per chain the operator runs smart accounts on: the counterfactual address of the key's account
(the factory's CREATE2 address, salt 0; modalcore/aa) and whether code is there (`eth_getCode`:
deployed by its first UserOperation). A chain that is not configured or whose RPC fails is left
out of the answer: the session shows the EOA there.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..aa.config import section_of
from ..aa.userop import counterfactual_address
from ..core.services import ServiceError
from ..services.backend import jsonrpc
from ..services.domain.handles import SmartAccountFound, SmartAccountsArgs, SmartAccountsFound
from .keys import Identity, KeyVault


def smart_address(config: object, chain: str, owner: str) -> str | None:
    """The key's counterfactual smart account on `chain` (None: the chain has none)."""
    entry = section_of(getattr(config, "model_extra", None)).chains.get(chain)
    return counterfactual_address(entry.factory, owner) if entry is not None else None


async def deployed(http: Any, rpc_url: str, address: str) -> bool:
    code = await jsonrpc.call(http, rpc_url, "eth_getCode", [address, "latest"])
    return isinstance(code, str) and code not in ("", "0x", "0x0")


def owner_of(vault: KeyVault, identity: str) -> str | None:
    """The address of the identity's key ("kind:subject"), None when it has none."""
    kind, _, subject = identity.partition(":")
    try:
        return vault.address_of(Identity(kind, subject))
    except ValueError:
        return None


async def smart_accounts(vault: KeyVault, ctx: object, args: SmartAccountsArgs) -> SmartAccountsFound:
    owner = owner_of(vault, args.identity)
    if owner is None:
        raise ServiceError("no signed-in identity")
    config = getattr(ctx, "config", None)
    http = getattr(ctx, "http", None)
    networks = config.known_networks() if config is not None else {}

    async def one(chain: str) -> SmartAccountFound | None:
        network = networks.get(chain)
        address = smart_address(config, chain, owner) if network is not None else None
        if network is None or address is None or not network.rpc_urls or http is None:
            return None
        try:
            return {"chain": chain, "address": address, "deployed": await deployed(http, network.rpc_urls[0], address)}
        except (jsonrpc.RpcCallError, OSError, ValueError):
            return None

    found = await asyncio.gather(*(one(chain) for chain in dict.fromkeys(args.chains)))
    return {"owner": owner, "accounts": [a for a in found if a is not None]}
