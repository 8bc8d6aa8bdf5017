"""The engine as the VerifyingPaymaster's signer (issue 32): paymasterData =
abi.encode(uint48 validUntil, uint48 validAfter) ++ an EIP-191 signature over the paymaster's
getHash(userOp, validUntil, validAfter), which covers every gas field: sign after estimating.
"""

from __future__ import annotations

from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount
from eth_utils.crypto import keccak

from .userop import DUMMY_SIGNATURE, UserOperation, address

UINT48 = 2**48 - 1


def _word(value: int) -> bytes:
    return value.to_bytes(32, "big")


def _address_word(value: str) -> bytes:
    return bytes(12) + bytes.fromhex(address(value)[2:])


def verifying_paymaster_hash(op: UserOperation, paymaster: str, chain_id: int,
                             valid_until: int, valid_after: int) -> bytes:
    """VerifyingPaymaster.getHash (v0.7 sample) for `op` as it will be sent to `paymaster`."""
    paymaster_gas = (op.paymaster_verification_gas_limit << 128) | op.paymaster_post_op_gas_limit
    return bytes(keccak(b"".join([
        _address_word(op.sender), _word(op.nonce), keccak(op.init_code), keccak(op.call_data),
        op.account_gas_limits, _word(paymaster_gas), _word(op.pre_verification_gas), op.gas_fees,
        _word(chain_id), _address_word(paymaster), _word(valid_until), _word(valid_after),
    ])))


def paymaster_data(valid_until: int, valid_after: int, signature: bytes) -> bytes:
    if not (0 <= valid_after <= UINT48 and 0 <= valid_until <= UINT48):
        raise ValueError("validity out of uint48")
    return _word(valid_until) + _word(valid_after) + signature


def with_dummy_paymaster(op: UserOperation, paymaster: str) -> UserOperation:
    """`op` naming the paymaster with a signature of the right length, for gas estimation."""
    return op.with_(paymaster=address(paymaster, "paymaster"),
                    paymaster_data=paymaster_data(0, 0, DUMMY_SIGNATURE))


def sign_sponsorship(op: UserOperation, signer: LocalAccount, chain_id: int,
                     valid_until: int, valid_after: int = 0) -> UserOperation:
    """`op` (paymaster and its gas limits set) with the paymaster's signed data."""
    if op.paymaster is None:
        raise ValueError("the operation names no paymaster")
    digest = verifying_paymaster_hash(op, op.paymaster, chain_id, valid_until, valid_after)
    signature = signer.sign_message(encode_defunct(primitive=digest)).signature
    return op.with_(paymaster_data=paymaster_data(valid_until, valid_after, bytes(signature)))
