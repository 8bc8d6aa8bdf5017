"""Farcaster's IdRegistry on a dev chain (issue 33): the real contract (artifact built from
farcasterxyz/contracts, see fixtures/chain/contracts/IdRegistry.md), deployed by dev account 0
as migrator and owner, which then names itself the ID gateway, unpauses the registry (it is
deployed paused) and registers dev accounts 1..3 as FIDs 1..3 with no recovery address.

The dev chain stands in for OP Mainnet (chain 10), where the real registry lives: the engine
reads `idOf(custody)` through the RPC its [farcaster] config names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modalcore_dev.devchain.contracts import DeploymentError, deploy_contract
from modalcore_dev.devchain.rpc import Rpc

ARTIFACT = "IdRegistry"
FID_ACCOUNTS = (1, 2, 3)
"""Dev account indexes registered as FIDs, in order (FIDs 1, 2, 3)."""
NO_RECOVERY = "0x" + "00" * 20


def deploy_id_registry(rpc: Rpc, deployer: str, accounts: Sequence[str]) -> str:
    registry = deploy_contract(rpc, deployer, ARTIFACT, ["address", "address"], [deployer, deployer])
    rpc.send_call(deployer, registry, "setIdGateway(address)", [deployer])
    rpc.send_call(deployer, registry, "unpause()", [])
    for index in FID_ACCOUNTS:
        rpc.send_call(deployer, registry, "register(address,address)", [accounts[index], NO_RECOVERY])
    return registry


def describe_id_registry(rpc: Rpc, registry: str, accounts: Sequence[str]) -> dict[str, Any]:
    fids: list[dict[str, Any]] = []
    for index in FID_ACCOUNTS:
        (fid,) = rpc.eth_call(registry, "idOf(address)", [accounts[index]], returns=["uint256"])
        if int(fid) == 0:
            raise DeploymentError(f"IdRegistry {registry}: dev account {index} has no FID")
        fids.append({"fid": int(fid), "custody": accounts[index]})
    return {"idRegistry": registry, "artifact": ARTIFACT, "fids": fids}
