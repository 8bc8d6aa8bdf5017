"""ERC-4337 v0.7 UserOperations, pure (issue 32): the unpacked RPC shape, its hash, the smart
account's call data, counterfactual addresses and ERC-6492 signature wrapping.

No I/O and no ABI library (update code may import this): the few ABI shapes needed are encoded
here by hand, each checked against the chain in tests/aa.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple

from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from .proxy_code import ERC1967_PROXY_CREATION_CODE

ENTRY_POINT_V07 = "0x0000000071727De22E5E9d8BAf0edAc6f37da032"
# 65 bytes that recover to some address without reverting (r, s, v well formed): what a
# signature costs in gas estimation before the real one exists (v0.7 SimpleAccount returns
# SIG_VALIDATION_FAILED for it, which estimation tolerates).
DUMMY_SIGNATURE = bytes.fromhex("fffffffffffffffffffffffffffffff0" + "00" * 16 + "7" + "a" * 63 + "1c")
ERC6492_MAGIC = bytes.fromhex("64926492" * 8)

MAX_FIELD_BYTES = 65_536  # callData, factoryData, paymasterData
MAX_SIGNATURE_BYTES = 8_192
MAX_CALLS = 32  # calls in one executeBatch
MAX_RPC_KEYS = 32
UINT128 = 2**128 - 1
UINT256 = 2**256 - 1

MalformedReason = Literal["not_an_object", "missing_field", "bad_address", "bad_quantity",
                          "bad_bytes", "too_large", "inconsistent"]


class MalformedUserOp(ValueError):
    """A UserOperation (or a part of one) that cannot be used; `reason` says which rule it broke
    and `field` where. Nothing is sent for it."""

    def __init__(self, reason: MalformedReason, field: str = "") -> None:
        super().__init__(f"{reason}: {field}" if field else reason)
        self.reason: MalformedReason = reason
        self.field = field


def _selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


EXECUTE = _selector("execute(address,uint256,bytes)")
EXECUTE_BATCH = _selector("executeBatch(address[],uint256[],bytes[])")
CREATE_ACCOUNT = _selector("createAccount(address,uint256)")
INITIALIZE = _selector("initialize(address)")


# -- values ------------------------------------------------------------------------------------

def address(value: object, field: str = "address") -> str:
    """A checksummed address from 0x + 40 hex digits, else MalformedUserOp."""
    if not isinstance(value, str) or len(value) != 42 or not value.startswith("0x"):
        raise MalformedUserOp("bad_address", field)
    try:
        int(value[2:], 16)
    except ValueError:
        raise MalformedUserOp("bad_address", field) from None
    return str(to_checksum_address(value))


def quantity(value: object, field: str, limit: int = UINT256) -> int:
    """An RPC quantity (0x hex, at most 66 characters) or an int, within 0..limit."""
    if isinstance(value, bool):
        raise MalformedUserOp("bad_quantity", field)
    if isinstance(value, str):
        if not value.startswith("0x") or not 2 < len(value) <= 66:
            raise MalformedUserOp("bad_quantity", field)
        try:
            value = int(value, 16)
        except ValueError:
            raise MalformedUserOp("bad_quantity", field) from None
    if not isinstance(value, int) or not 0 <= value <= limit:
        raise MalformedUserOp("bad_quantity", field)
    return value


def hex_bytes(value: object, field: str, limit: int = MAX_FIELD_BYTES) -> bytes:
    """0x-prefixed hex of at most `limit` bytes."""
    if not isinstance(value, str) or not value.startswith("0x") or len(value) % 2:
        raise MalformedUserOp("bad_bytes", field)
    if len(value) > 2 + 2 * limit:
        raise MalformedUserOp("too_large", field)
    try:
        return bytes.fromhex(value[2:])
    except ValueError:
        raise MalformedUserOp("bad_bytes", field) from None


def _hex(data: bytes) -> str:
    return "0x" + data.hex()


def _word(value: int) -> bytes:
    return value.to_bytes(32, "big")


def _address_word(value: str) -> bytes:
    return bytes(12) + bytes.fromhex(address(value)[2:])


def _bytes_tail(data: bytes) -> bytes:
    return _word(len(data)) + data + bytes(-len(data) % 32)


# -- the operation -----------------------------------------------------------------------------

@dataclass(frozen=True)
class UserOperation:
    """A v0.7 UserOperation in the bundler RPC's unpacked shape (camelCase there: factoryData,
    callGasLimit, paymasterVerificationGasLimit, ...). No factory: an account already deployed;
    no paymaster: the account pays its gas."""

    sender: str
    nonce: int
    call_data: bytes
    factory: str | None = None
    factory_data: bytes = b""
    call_gas_limit: int = 0
    verification_gas_limit: int = 0
    pre_verification_gas: int = 0
    max_fee_per_gas: int = 0
    max_priority_fee_per_gas: int = 0
    paymaster: str | None = None
    paymaster_verification_gas_limit: int = 0
    paymaster_post_op_gas_limit: int = 0
    paymaster_data: bytes = b""
    signature: bytes = DUMMY_SIGNATURE

    def with_(self, **changes: Any) -> UserOperation:
        return replace(self, **changes)

    @property
    def init_code(self) -> bytes:
        if self.factory is None:
            return b""
        return bytes.fromhex(address(self.factory, "factory")[2:]) + self.factory_data

    @property
    def paymaster_and_data(self) -> bytes:
        if self.paymaster is None:
            return b""
        return (bytes.fromhex(address(self.paymaster, "paymaster")[2:])
                + self.paymaster_verification_gas_limit.to_bytes(16, "big")
                + self.paymaster_post_op_gas_limit.to_bytes(16, "big") + self.paymaster_data)

    @property
    def account_gas_limits(self) -> bytes:
        return self.verification_gas_limit.to_bytes(16, "big") + self.call_gas_limit.to_bytes(16, "big")

    @property
    def gas_fees(self) -> bytes:
        return self.max_priority_fee_per_gas.to_bytes(16, "big") + self.max_fee_per_gas.to_bytes(16, "big")

    def to_rpc(self) -> dict[str, str]:
        rpc = {
            "sender": address(self.sender, "sender"),
            "nonce": hex(self.nonce),
            "callData": _hex(self.call_data),
            "callGasLimit": hex(self.call_gas_limit),
            "verificationGasLimit": hex(self.verification_gas_limit),
            "preVerificationGas": hex(self.pre_verification_gas),
            "maxFeePerGas": hex(self.max_fee_per_gas),
            "maxPriorityFeePerGas": hex(self.max_priority_fee_per_gas),
            "signature": _hex(self.signature),
        }
        if self.factory is not None:
            rpc["factory"] = address(self.factory, "factory")
            rpc["factoryData"] = _hex(self.factory_data)
        if self.paymaster is not None:
            rpc["paymaster"] = address(self.paymaster, "paymaster")
            rpc["paymasterVerificationGasLimit"] = hex(self.paymaster_verification_gas_limit)
            rpc["paymasterPostOpGasLimit"] = hex(self.paymaster_post_op_gas_limit)
            rpc["paymasterData"] = _hex(self.paymaster_data)
        return rpc

    @classmethod
    def from_rpc(cls, raw: object) -> UserOperation:
        """The operation of an RPC object; MalformedUserOp when a field is missing, of the wrong
        type or out of bounds (keys beyond the v0.7 fields are ignored, at most MAX_RPC_KEYS)."""
        if not isinstance(raw, Mapping):
            raise MalformedUserOp("not_an_object")
        if len(raw) > MAX_RPC_KEYS:
            raise MalformedUserOp("too_large", "keys")
        for required in ("sender", "nonce", "callData"):
            if raw.get(required) is None:
                raise MalformedUserOp("missing_field", required)

        def gas(name: str) -> int:
            return quantity(raw.get(name) or 0, name, UINT128)

        factory = raw.get("factory")
        paymaster = raw.get("paymaster")
        return cls(
            sender=address(raw["sender"], "sender"),
            nonce=quantity(raw["nonce"], "nonce"),
            call_data=hex_bytes(raw["callData"], "callData"),
            factory=None if factory in (None, "0x") else address(factory, "factory"),
            factory_data=hex_bytes(raw.get("factoryData") or "0x", "factoryData"),
            call_gas_limit=gas("callGasLimit"),
            verification_gas_limit=gas("verificationGasLimit"),
            pre_verification_gas=quantity(raw.get("preVerificationGas") or 0, "preVerificationGas"),
            max_fee_per_gas=gas("maxFeePerGas"),
            max_priority_fee_per_gas=gas("maxPriorityFeePerGas"),
            paymaster=None if paymaster in (None, "0x") else address(paymaster, "paymaster"),
            paymaster_verification_gas_limit=gas("paymasterVerificationGasLimit"),
            paymaster_post_op_gas_limit=gas("paymasterPostOpGasLimit"),
            paymaster_data=hex_bytes(raw.get("paymasterData") or "0x", "paymasterData"),
            signature=hex_bytes(raw.get("signature") or "0x", "signature", MAX_SIGNATURE_BYTES),
        )


def user_op_hash(op: UserOperation, entry_point: str, chain_id: int) -> bytes:
    """EntryPoint v0.7's getUserOpHash: keccak(abi.encode(keccak(pack(op)), entryPoint, chainId))."""
    packed = b"".join([
        _address_word(op.sender), _word(op.nonce), keccak(op.init_code), keccak(op.call_data),
        op.account_gas_limits, _word(op.pre_verification_gas), op.gas_fees, keccak(op.paymaster_and_data),
    ])
    return bytes(keccak(keccak(packed) + _address_word(entry_point) + _word(chain_id)))


# -- call data ---------------------------------------------------------------------------------

class Call(NamedTuple):
    to: str
    value: int = 0
    data: bytes = b""


def _checked_call(call: Call, field: str) -> Call:
    if len(call.data) > MAX_FIELD_BYTES:
        raise MalformedUserOp("too_large", f"{field}.data")
    return Call(address(call.to, f"{field}.to"), quantity(call.value, f"{field}.value"), call.data)


def execute_call_data(to: str, value: int, data: bytes = b"") -> bytes:
    """SimpleAccount.execute(to, value, data)."""
    call = _checked_call(Call(to, value, data), "call")
    return EXECUTE + _address_word(call.to) + _word(call.value) + _word(0x60) + _bytes_tail(call.data)


def _array(items: Sequence[bytes]) -> bytes:
    return _word(len(items)) + b"".join(items)


def _bytes_array(items: Sequence[bytes]) -> bytes:
    tails = [_bytes_tail(item) for item in items]
    offsets, at = [], 32 * len(items)
    for tail in tails:
        offsets.append(_word(at))
        at += len(tail)
    return _word(len(items)) + b"".join(offsets) + b"".join(tails)


def execute_batch_call_data(calls: Sequence[Call]) -> bytes:
    """SimpleAccount.executeBatch(dest[], value[], func[]): the calls in order, all or none."""
    if not 0 < len(calls) <= MAX_CALLS:
        raise MalformedUserOp("too_large" if calls else "missing_field", "calls")
    checked = [_checked_call(Call(*c), f"calls[{i}]") for i, c in enumerate(calls)]
    dests = _array([_address_word(c.to) for c in checked])
    values = _array([_word(c.value) for c in checked])
    funcs = _bytes_array([c.data for c in checked])
    head = _word(0x60) + _word(0x60 + len(dests)) + _word(0x60 + len(dests) + len(values))
    return EXECUTE_BATCH + head + dests + values + funcs


def factory_data(owner: str, salt: int = 0) -> bytes:
    """ModalSmartAccountFactory.createAccount(owner, salt): a UserOperation's factoryData."""
    return CREATE_ACCOUNT + _address_word(owner) + _word(quantity(salt, "salt"))


def _create_address(deployer: str, nonce: int) -> str:
    """CREATE's address for a small nonce (1..127): keccak(rlp([deployer, nonce]))[12:]."""
    assert 0 < nonce < 0x80
    rlp = bytes([0xd6, 0x94]) + bytes.fromhex(address(deployer)[2:]) + bytes([nonce])
    return address("0x" + keccak(rlp)[12:].hex())


def account_implementation(factory: str) -> str:
    """The factory's accountImplementation: the first contract its constructor created."""
    return _create_address(factory, 1)


def counterfactual_address(factory: str, owner: str, salt: int = 0,
                           proxy_creation_code: bytes = ERC1967_PROXY_CREATION_CODE) -> str:
    """ModalSmartAccountFactory.getAddress(owner, salt) without a call: CREATE2 of an ERC1967Proxy
    to the account implementation, initialized for `owner`."""
    init = INITIALIZE + _address_word(owner)
    args = _address_word(account_implementation(factory)) + _word(0x40) + _bytes_tail(init)
    code_hash = keccak(proxy_creation_code + args)
    digest = keccak(b"\xff" + bytes.fromhex(address(factory)[2:]) + _word(quantity(salt, "salt")) + code_hash)
    return address("0x" + digest[12:].hex())


# -- ERC-6492 ----------------------------------------------------------------------------------

def wrap_6492(factory: str, data: bytes, signature: bytes) -> bytes:
    """A signature of a not yet deployed account: abi.encode(factory, factoryData, signature) ++ magic."""
    if len(data) > MAX_FIELD_BYTES or len(signature) > MAX_SIGNATURE_BYTES:
        raise MalformedUserOp("too_large", "signature")
    data_tail = _bytes_tail(data)
    body = (_address_word(factory) + _word(0x60) + _word(0x60 + len(data_tail)) + data_tail
            + _bytes_tail(signature))
    return body + ERC6492_MAGIC


def is_6492(signature: bytes) -> bool:
    return signature.endswith(ERC6492_MAGIC)


def _read_bytes(body: bytes, offset: int, field: str) -> bytes:
    if offset % 32 or offset + 32 > len(body):
        raise MalformedUserOp("inconsistent", field)
    length = int.from_bytes(body[offset:offset + 32], "big")
    if offset + 32 + length > len(body):
        raise MalformedUserOp("inconsistent", field)
    return body[offset + 32:offset + 32 + length]


def unwrap_6492(signature: bytes) -> tuple[str, bytes, bytes] | None:
    """(factory, factoryData, inner signature) of a wrapped signature; None when it is not one."""
    if not is_6492(signature):
        return None
    body = signature[:-len(ERC6492_MAGIC)]
    if len(body) < 96 or len(body) > MAX_FIELD_BYTES + MAX_SIGNATURE_BYTES + 256:
        raise MalformedUserOp("too_large" if len(body) >= 96 else "inconsistent", "signature")
    if any(body[:12]):
        raise MalformedUserOp("bad_address", "factory")
    factory = address("0x" + body[12:32].hex(), "factory")
    data = _read_bytes(body, int.from_bytes(body[32:64], "big"), "factoryData")
    inner = _read_bytes(body, int.from_bytes(body[64:96], "big"), "signature")
    return factory, data, inner
