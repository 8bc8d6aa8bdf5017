"""The pure UserOperation module (modalcore/aa/userop.py): its hand-made ABI encodings equal
eth_abi's, the RPC shape round-trips and refuses malformed input by reason, ERC-6492 wraps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_abi.abi import decode, encode
from eth_utils.crypto import keccak

from modalcore.aa.proxy_code import ERC1967_PROXY_CREATION_CODE
from modalcore.aa.userop import (DUMMY_SIGNATURE, ERC6492_MAGIC, Call, MalformedUserOp, UserOperation,
                                 execute_batch_call_data, execute_call_data, factory_data, unwrap_6492,
                                 user_op_hash, wrap_6492)

ALICE = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
BOB = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
ARTIFACTS = Path(__file__).resolve().parents[2] / "fixtures" / "chain" / "contracts"


def _op() -> UserOperation:
    return UserOperation(sender=ALICE, nonce=7, call_data=b"\x01\x02", factory=BOB, factory_data=b"\xaa" * 3,
                         call_gas_limit=100_000, verification_gas_limit=200_000, pre_verification_gas=50_000,
                         max_fee_per_gas=3 * 10**9, max_priority_fee_per_gas=10**9, paymaster=BOB,
                         paymaster_verification_gas_limit=30_000, paymaster_post_op_gas_limit=1,
                         paymaster_data=b"\x05" * 10, signature=DUMMY_SIGNATURE)


def test_execute_call_data_is_the_abi_encoding_of_execute() -> None:
    data = execute_call_data(BOB, 10**16, b"\xde\xad\xbe\xef")
    assert data[:4] == keccak(text="execute(address,uint256,bytes)")[:4]
    assert data[4:] == encode(["address", "uint256", "bytes"], [BOB, 10**16, b"\xde\xad\xbe\xef"])


def test_execute_batch_call_data_is_the_abi_encoding_of_execute_batch() -> None:
    calls = [Call(BOB, 1, b""), Call(ALICE, 0, b"\x01" * 33), Call(BOB, 5, b"\x02" * 64)]
    data = execute_batch_call_data(calls)
    assert data[:4] == keccak(text="executeBatch(address[],uint256[],bytes[])")[:4]
    assert data[4:] == encode(["address[]", "uint256[]", "bytes[]"],
                              [[c.to for c in calls], [c.value for c in calls], [c.data for c in calls]])


def test_factory_data_is_create_account() -> None:
    data = factory_data(ALICE, 3)
    assert data == keccak(text="createAccount(address,uint256)")[:4] + encode(["address", "uint256"], [ALICE, 3])


def test_a_call_without_a_hex_address_is_refused_by_reason() -> None:
    with pytest.raises(MalformedUserOp) as caught:
        execute_call_data("bob.eth", 0)
    assert (caught.value.reason, caught.value.field) == ("bad_address", "call.to")
    with pytest.raises(MalformedUserOp) as empty:
        execute_batch_call_data([])
    assert empty.value.reason == "missing_field"
    with pytest.raises(MalformedUserOp) as many:
        execute_batch_call_data([Call(BOB)] * 33)
    assert many.value.reason == "too_large"


def test_the_rpc_shape_round_trips() -> None:
    op = _op()
    rpc = op.to_rpc()
    assert rpc["factoryData"] == "0xaaaaaa" and rpc["paymasterPostOpGasLimit"] == "0x1"
    assert UserOperation.from_rpc(rpc) == op
    plain = UserOperation(sender=ALICE, nonce=0, call_data=b"")
    assert "factory" not in plain.to_rpc() and "paymaster" not in plain.to_rpc()
    assert UserOperation.from_rpc(plain.to_rpc()) == plain


@pytest.mark.parametrize(("change", "reason", "field"), [
    ({"sender": "0x1234"}, "bad_address", "sender"),
    ({"nonce": "12"}, "bad_quantity", "nonce"),
    ({"nonce": None}, "missing_field", "nonce"),
    ({"callGasLimit": hex(2**128)}, "bad_quantity", "callGasLimit"),
    ({"callData": "0x" + "00" * 65_537}, "too_large", "callData"),
    ({"signature": "0xzz"}, "bad_bytes", "signature"),
    ({"maxFeePerGas": True}, "bad_quantity", "maxFeePerGas"),
])
def test_a_malformed_rpc_operation_is_refused_by_reason(change: dict[str, object], reason: str, field: str) -> None:
    with pytest.raises(MalformedUserOp) as caught:
        UserOperation.from_rpc({**_op().to_rpc(), **change})
    assert (caught.value.reason, caught.value.field) == (reason, field)


def test_an_rpc_operation_that_is_not_an_object_or_too_wide_is_refused() -> None:
    with pytest.raises(MalformedUserOp) as caught:
        UserOperation.from_rpc([1, 2])
    assert caught.value.reason == "not_an_object"
    with pytest.raises(MalformedUserOp) as wide:
        UserOperation.from_rpc({**_op().to_rpc(), **{f"x{i}": 1 for i in range(40)}})
    assert wide.value.reason == "too_large"


def test_the_hash_follows_the_v07_packing() -> None:
    op, entry_point = _op(), "0x0000000071727De22E5E9d8BAf0edAc6f37da032"
    packed = encode(
        ["address", "uint256", "bytes32", "bytes32", "bytes32", "uint256", "bytes32", "bytes32"],
        [op.sender, op.nonce, keccak(bytes.fromhex(BOB[2:]) + op.factory_data), keccak(op.call_data),
         (op.verification_gas_limit << 128 | op.call_gas_limit).to_bytes(32, "big"), op.pre_verification_gas,
         (op.max_priority_fee_per_gas << 128 | op.max_fee_per_gas).to_bytes(32, "big"),
         keccak(bytes.fromhex(BOB[2:]) + (30_000).to_bytes(16, "big") + (1).to_bytes(16, "big") + op.paymaster_data)])
    expected = keccak(encode(["bytes32", "address", "uint256"], [keccak(packed), entry_point, 31337]))
    assert user_op_hash(op, entry_point, 31337) == expected
    assert user_op_hash(op, entry_point, 31338) != expected


def test_erc6492_wraps_and_unwraps() -> None:
    signature = wrap_6492(BOB, factory_data(ALICE, 0), b"\x11" * 65)
    assert signature.endswith(ERC6492_MAGIC)
    assert decode(["address", "bytes", "bytes"], signature[:-32]) == (BOB.lower(), factory_data(ALICE, 0), b"\x11" * 65)
    assert unwrap_6492(signature) == (BOB, factory_data(ALICE, 0), b"\x11" * 65)
    assert unwrap_6492(b"\x11" * 65) is None


def test_a_wrapped_signature_whose_offsets_lie_is_refused() -> None:
    bad = (bytes(12) + bytes.fromhex(BOB[2:]) + (0x60).to_bytes(32, "big") + (2**64).to_bytes(32, "big")
           + (1).to_bytes(32, "big") + b"\x00" * 32 + ERC6492_MAGIC)
    with pytest.raises(MalformedUserOp) as caught:
        unwrap_6492(bad)
    assert caught.value.reason == "inconsistent"


def test_the_proxy_code_is_the_one_compile_mjs_built_with_the_factory() -> None:
    artifact = json.loads((ARTIFACTS / "ERC1967Proxy.json").read_text())
    assert ERC1967_PROXY_CREATION_CODE.hex() == artifact["bytecode"][2:]
