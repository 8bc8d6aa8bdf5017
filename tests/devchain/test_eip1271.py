"""The EIP-1271 contract wallet: owner signatures are valid, others are not; owner calls."""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.deploy import EIP1271_MAGIC_VALUE
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devchain.rpc import RpcError, TransactionFailed

pytestmark = pytest.mark.chain

# Hardhat's public dev keys (accounts #0 and #1 of the test mnemonic).
OWNER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def is_valid_signature(info: ChainsInfo, chain_id: int, digest: bytes, signature: bytes) -> str:
    wallet = info.chain(chain_id)["eip1271Wallet"]["address"]
    with info.rpc(chain_id) as rpc:
        (result,) = rpc.eth_call(
            wallet, "isValidSignature(bytes32,bytes)", [digest, signature], returns=["bytes4"]
        )
    return "0x" + bytes(result).hex()


def sign(text: str, key: str) -> tuple[bytes, bytes]:
    signed = Account.sign_message(encode_defunct(text=text), key)
    return bytes(signed.message_hash), bytes(signed.signature)


def test_wallet_is_owned_by_dev_account_0(devchains: ChainsInfo) -> None:
    owner = Account.from_key(OWNER_KEY).address
    for chain_id in devchains.chain_ids:
        assert devchains.chain(chain_id)["eip1271Wallet"]["owner"] == owner


def test_owner_signature_returns_the_magic_value(devchains: ChainsInfo) -> None:
    digest, signature = sign("Sign in to the demo\nNonce: 8f3a1c", OWNER_KEY)
    for chain_id in devchains.chain_ids:
        assert is_valid_signature(devchains, chain_id, digest, signature) == EIP1271_MAGIC_VALUE


def test_other_signer_is_rejected(devchains: ChainsInfo) -> None:
    digest, signature = sign("Sign in to the demo\nNonce: 8f3a1c", OTHER_KEY)
    assert is_valid_signature(devchains, 31337, digest, signature) == "0xffffffff"


def test_signature_of_another_message_is_rejected(devchains: ChainsInfo) -> None:
    digest, _ = sign("message one", OWNER_KEY)
    _, signature = sign("message two", OWNER_KEY)
    assert is_valid_signature(devchains, 31337, digest, signature) == "0xffffffff"


def test_high_s_twin_of_a_valid_signature_is_rejected(devchains: ChainsInfo) -> None:
    digest, signature = sign("malleable?", OWNER_KEY)
    r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64]
    twin = r + (SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - v])  # 27 <-> 28
    assert is_valid_signature(devchains, 31337, digest, twin) == "0xffffffff"


def test_malformed_signature_is_rejected(devchains: ChainsInfo) -> None:
    digest, signature = sign("short", OWNER_KEY)
    assert is_valid_signature(devchains, 31337, digest, signature[:64]) == "0xffffffff"
    assert is_valid_signature(devchains, 31337, digest, b"") == "0xffffffff"


def test_owner_can_forward_a_token_transfer(devchain: ChainsInfo) -> None:
    entry = devchain.chain(31337)
    wallet, owner = entry["eip1271Wallet"]["address"], entry["eip1271Wallet"]["owner"]
    receiver = entry["accounts"][3]
    tusd = devchain.token(31337, "TUSD")["address"]
    from modalcore_dev.devchain.rpc import encode_call

    inner = bytes.fromhex(encode_call("transfer(address,uint256)", [receiver, 250_000])[2:])
    with devchain.rpc(31337) as rpc:
        before = rpc.erc20_balance(tusd, wallet), rpc.erc20_balance(tusd, receiver)
        rpc.send_call(owner, wallet, "execute(address,uint256,bytes)", [tusd, 0, inner])
        after = rpc.erc20_balance(tusd, wallet), rpc.erc20_balance(tusd, receiver)
    assert after == (before[0] - 250_000, before[1] + 250_000)


def test_only_the_owner_can_forward_calls(devchain: ChainsInfo) -> None:
    entry = devchain.chain(31337)
    wallet = entry["eip1271Wallet"]["address"]
    stranger = entry["accounts"][2]
    with devchain.rpc(31337) as rpc, pytest.raises((RpcError, TransactionFailed)):
        rpc.send_call(stranger, wallet, "execute(address,uint256,bytes)", [stranger, 1, b""])


def test_wallet_holds_eth_and_tokens(devchains: ChainsInfo) -> None:
    entry = devchains.chain(31338)
    wallet = entry["eip1271Wallet"]["address"]
    with devchains.rpc(31338) as rpc:
        assert rpc.balance(wallet) == 10**18
        assert rpc.erc20_balance(devchains.token(31338, "DEMO")["address"], wallet) == 1000 * 10**18
