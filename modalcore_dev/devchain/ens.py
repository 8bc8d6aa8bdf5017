"""ENS on a dev chain: ENSRegistry and ReverseRegistrar (`@ensdomains/ens` 0.6.2) and
PublicResolver (`@ensdomains/resolver` 0.3.1) from their published artifacts, the `eth` and
`addr.reverse` nodes, and one name per NAMES entry with its forward record (addr) and reverse
record (name), both owned by the named account afterwards.

Everything is sent by the deployer (the dev accounts' nonces and ETH stay untouched): the
deployer holds addr.reverse while it writes the reverse records, then hands it to the reverse
registrar so any account can set its own reverse name with `setName(string)`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eth_utils.address import to_checksum_address

from modalcore.services.backend.namehash import REVERSE_SUFFIX, labelhash, namehash, reverse_label, reverse_node
from modalcore_dev.devchain.contracts import DeploymentError, deploy_contract
from modalcore_dev.devchain.rpc import Rpc

TLD = "eth"
ENS_ARTIFACTS = ("ENSRegistry", "PublicResolver", "ReverseRegistrar")
NAMES: tuple[tuple[str, int], ...] = (("alice.eth", 0), ("bob.eth", 1), ("carol.eth", 2))
"""Dev names and the dev account index each one points to."""


def deploy_ens(rpc: Rpc, deployer: str) -> dict[str, str]:
    registry = deploy_contract(rpc, deployer, "ENSRegistry", [], [])
    resolver = deploy_contract(rpc, deployer, "PublicResolver", ["address"], [registry])
    reverse = deploy_contract(rpc, deployer, "ReverseRegistrar", ["address", "address"],
                              [registry, resolver])
    return {"registry": registry, "publicResolver": resolver, "reverseRegistrar": reverse}


def register_names(rpc: Rpc, deployer: str, addresses: dict[str, str], accounts: Sequence[str]) -> None:
    registry, resolver = addresses["registry"], addresses["publicResolver"]
    root = b"\x00" * 32
    sub_owner = "setSubnodeOwner(bytes32,bytes32,address)"
    sub_record = "setSubnodeRecord(bytes32,bytes32,address,address,uint64)"
    rpc.send_call(deployer, registry, sub_owner, [root, labelhash(TLD), deployer])
    rpc.send_call(deployer, registry, sub_owner, [root, labelhash("reverse"), deployer])
    rpc.send_call(deployer, registry, sub_owner, [namehash("reverse"), labelhash("addr"), deployer])
    for name, index in NAMES:
        account = accounts[index]
        label, _, parent = name.partition(".")
        node = namehash(name)
        rpc.send_call(deployer, registry, sub_record,
                      [namehash(parent), labelhash(label), deployer, resolver, 0])
        rpc.send_call(deployer, resolver, "setAddr(bytes32,address)", [node, account])
        rpc.send_call(deployer, registry, "setOwner(bytes32,address)", [node, account])
        rnode = reverse_node(account)
        rpc.send_call(deployer, registry, sub_record,
                      [namehash(REVERSE_SUFFIX), labelhash(reverse_label(account)), deployer,
                       resolver, 0])
        rpc.send_call(deployer, resolver, "setName(bytes32,string)", [rnode, name])
        rpc.send_call(deployer, registry, "setOwner(bytes32,address)", [rnode, account])
    rpc.send_call(deployer, registry, sub_owner,
                  [namehash("reverse"), labelhash("addr"), addresses["reverseRegistrar"]])


def describe_ens(rpc: Rpc, addresses: dict[str, str], accounts: Sequence[str]) -> dict[str, Any]:
    """The deployment entry's "ens" part; checks every dev name resolves both ways."""
    registry, resolver = addresses["registry"], addresses["publicResolver"]
    names: dict[str, str] = {}
    for name, index in NAMES:
        (address,) = rpc.eth_call(resolver, "addr(bytes32)", [namehash(name)], ["address"])
        (reverse,) = rpc.eth_call(resolver, "name(bytes32)", [reverse_node(accounts[index])],
                                  ["string"])
        if address.lower() != accounts[index].lower() or reverse != name:
            raise DeploymentError(f"{name} on registry {registry} resolves to {address} / {reverse!r}")
        names[name] = to_checksum_address(address)
    return {**addresses, "names": names}
