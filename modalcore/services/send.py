"""Sending tokens on EVM chains (SPEC §7 "Chain RPC"): the transaction a send asks the wallet
for, and the network fee estimate the preview shows (eth_estimateGas + eth_gasPrice).

Native sends are a transaction with to, value and data. ERC-20 sends call `transfer` on the
token contract; which `transfer` interface a contract has comes from a data list
(`modalcore/data/transfer_interfaces.json`, package data), never from code naming contracts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

import httpx
from eth_abi.abi import encode
from eth_utils.crypto import keccak

from .jsonrpc import batch
from .shapes import FeeResult

TRANSFER_INTERFACES_PATH: Traversable = files("modalcore.data") / "transfer_interfaces.json"


class TransferInterfaceError(ValueError):
    """The transfer-interface data list is malformed."""


@dataclass(frozen=True)
class TransferInterface:
    name: str
    function: str  # e.g. "transfer(address,uint256)"
    returns: tuple[str, ...]  # ABI output types; () for contracts whose transfer returns nothing

    @property
    def arg_types(self) -> list[str]:
        inner = self.function[self.function.index("(") + 1 : self.function.rindex(")")]
        return [t for t in inner.split(",") if t]

    @property
    def selector(self) -> bytes:
        return bytes(keccak(text=self.function)[:4])


@dataclass(frozen=True)
class TransferInterfaces:
    default: str
    interfaces: dict[str, TransferInterface]
    contracts: dict[str, str]  # lower-case address -> interface name

    def for_token(self, token_address: str) -> TransferInterface:
        name = self.contracts.get(token_address.lower(), self.default)
        return self.interfaces[name]


def load_interfaces(path: Traversable = TRANSFER_INTERFACES_PATH) -> TransferInterfaces:
    try:
        raw = json.loads(path.read_text())
        interfaces = {
            name: TransferInterface(name, str(spec["function"]), tuple(str(t) for t in spec["returns"]))
            for name, spec in dict(raw["interfaces"]).items()
        }
        default = str(raw["default"])
        contracts = {str(k).lower(): str(v) for k, v in dict(raw["contracts"]).items()}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise TransferInterfaceError(f"{path}: {error}") from error
    unknown = {default, *contracts.values()} - set(interfaces)
    if unknown:
        raise TransferInterfaceError(f"{path}: unknown interfaces {sorted(unknown)}")
    for interface in interfaces.values():
        if interface.arg_types != ["address", "uint256"]:
            raise TransferInterfaceError(f"{path}: {interface.name} is not transfer(address,uint256)")
    return TransferInterfaces(default, interfaces, contracts)


@cache
def interfaces() -> TransferInterfaces:
    return load_interfaces()


def transfer_interface(token_address: str) -> TransferInterface:
    return interfaces().for_token(token_address)


def transfer_data(token_address: str, receiver: str, amount: int) -> str:
    interface = transfer_interface(token_address)
    return "0x" + (interface.selector + encode(interface.arg_types, [receiver, amount])).hex()


def native_tx(sender: str, receiver: str, value: int) -> dict[str, str]:
    return {"from": sender, "to": receiver, "value": hex(value), "data": "0x"}


def erc20_tx(sender: str, token_address: str, receiver: str, amount: int) -> dict[str, str]:
    return {"from": sender, "to": token_address, "value": "0x0",
            "data": transfer_data(token_address, receiver, amount)}


def transfer_accepted(token_address: str, returned: str) -> bool:
    """Whether a simulated `transfer` (eth_call) answered as success for this contract's
    interface: a standard token returns true; a listed USDT contract returns nothing."""
    interface = transfer_interface(token_address)
    try:
        raw = bytes.fromhex(returned.removeprefix("0x"))
    except ValueError:
        return False
    if not interface.returns:
        return len(raw) == 0 or (len(raw) >= 32 and int.from_bytes(raw[:32], "big") == 1)
    return len(raw) >= 32 and int.from_bytes(raw[:32], "big") == 1


async def estimate_fee(
    http: httpx.AsyncClient, *, rpc_url: str, tx: dict[str, str], token: str | None = None
) -> FeeResult:
    """{"gas", "gas_price", "fee"} as decimal strings (wei); with `token`, also
    "transfer_ok": whether the simulated transfer succeeded (eth_call)."""
    calls: list[tuple[str, list[object]]] = [("eth_estimateGas", [tx]), ("eth_gasPrice", [])]
    if token:
        calls.append(("eth_call", [tx, "latest"]))
    results = await batch(http, rpc_url, calls)
    gas = int(results[0], 16)
    price = int(results[1], 16)
    out: FeeResult = {"gas": str(gas), "gas_price": str(price), "fee": str(gas * price)}
    if token:
        out["transfer_ok"] = transfer_accepted(token, str(results[2] or "0x"))
    return out
