"""Farcaster's IdRegistry on the dev chains (issue 33): dev accounts 1..3 are FIDs 1..3 both ways
(idOf, custodyOf); an unregistered account has FID 0; only the gateway (dev account 0) registers."""

from __future__ import annotations

import pytest

from modalcore_dev.devchain.farcaster import NO_RECOVERY
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devchain.rpc import RpcError

pytestmark = pytest.mark.chain


def test_dev_accounts_are_registered_fids(devchains: ChainsInfo) -> None:
    for chain_id in devchains.chain_ids:
        entry = devchains.chain(chain_id)
        registry = entry["farcaster"]["idRegistry"]
        with devchains.rpc(chain_id) as rpc:
            for item in entry["farcaster"]["fids"]:
                assert rpc.eth_call(registry, "idOf(address)", [item["custody"]], ["uint256"]) == (item["fid"],)
                (custody,) = rpc.eth_call(registry, "custodyOf(uint256)", [item["fid"]], ["address"])
                assert custody.lower() == item["custody"].lower()
            assert rpc.eth_call(registry, "idOf(address)", [entry["accounts"][4]], ["uint256"]) == (0,)


def test_only_the_gateway_registers(devchains: ChainsInfo) -> None:
    entry = devchains.chain(devchains.chain_ids[0])
    with devchains.rpc(devchains.chain_ids[0]) as rpc, pytest.raises(RpcError):
        rpc.send_call(entry["accounts"][4], entry["farcaster"]["idRegistry"], "register(address,address)",
                      [entry["accounts"][4], NO_RECOVERY])
