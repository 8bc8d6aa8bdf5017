"""What a token send asks the wallet for (behaviour.md §7): the transaction, and which `transfer`
interface a token contract has, from a data list (`modalcore/data/transfer_interfaces.json`,
package data), never from code naming contracts. Pure: the slices build transactions with it
without the RPC client (modalcore/services/backend/send.py estimates the fee).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from eth_utils.crypto import keccak

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
    return "0x" + (interface.selector + _word(int(receiver, 16)) + _word(amount)).hex()


def _word(value: int) -> bytes:
    """One ABI head word of transfer(address,uint256) (the only interface the data list may
    name): an address or amount, big-endian in 32 bytes; OverflowError outside uint256."""
    return value.to_bytes(32, "big")


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
