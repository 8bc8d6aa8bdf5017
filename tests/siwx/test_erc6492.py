"""Issue 32 item 5: SIWX from a smart account verifies server-side deployed or not. Before its
first operation the account has no code, so its owner's signature is wrapped per ERC-6492 (the
factory and its createAccount call, then the magic suffix) and the engine's verifier runs the
universal validator deployless; once deployed, the account's ERC-1271 `isValidSignature` answers
for the plain signature too. viem's `verifyMessage` (an independent implementation) agrees.

The account is ModalSmartAccount behind ModalSmartAccountFactory (chain/contracts/aa), deployed
here on the Hardhat dev chain; its isValidSignature accepts the owner's signature of the raw hash,
so the owner's personal_sign signature of the message is the account's."""

from __future__ import annotations

import json
import secrets
import subprocess
from typing import Any

import pytest
from eth_abi.abi import encode
from eth_account import Account
from eth_utils.address import to_checksum_address

from modalcore_dev.devchain.contracts import deploy_contract
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devchain.rpc import encode_call
from modalcore.siwx.backend.verify import ERC6492_MAGIC
from tests.viem_dir import viem_dir

from .conftest import ADDRESS_0, CHAIN_ID, Siwx, make_message, sign

pytestmark = pytest.mark.chain
HARNESS = __import__("pathlib").Path(__file__).parent / "viem" / "verify_message.mjs"
ANY_ENTRY_POINT = "0x0000000071727De22E5E9d8BAf0edAc6f37da032"  # stored, never called here


def wrap_6492(factory: str, factory_data: str, signature: str) -> str:
    body = encode(["address", "bytes", "bytes"],
                  [factory, bytes.fromhex(factory_data[2:]), bytes.fromhex(signature[2:])])
    return "0x" + (body + ERC6492_MAGIC).hex()


def _viem(rpc_url: str, cases: list[dict[str, str]]) -> list[Any]:
    found = viem_dir()
    assert found is not None, "viem is not installed (bundler/node_modules) and MODALCORE_VIEM_DIR is unset"
    done = subprocess.run(["node", str(HARNESS)], input=json.dumps({"rpc": rpc_url, "cases": cases}),
                          capture_output=True, text=True, timeout=60, env={"VIEM_DIR": str(found), "PATH": "/usr/bin:/bin:/usr/local/bin"})
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def _account(devchains: ChainsInfo) -> tuple[str, str, str, str, str]:
    """A fresh owner key and its counterfactual account: (key, owner, factory, factory data, account)."""
    key = "0x" + secrets.token_hex(32)
    owner = Account.from_key(key).address
    with devchains.rpc(CHAIN_ID) as rpc:
        deployer = rpc.accounts()[0]
        factory = deploy_contract(rpc, deployer, "ModalSmartAccountFactory", ["address"], [ANY_ENTRY_POINT])
        (account_word,) = rpc.eth_call(factory, "getAddress(address,uint256)", [owner, 0], ["address"])
    return key, owner, factory, encode_call("createAccount(address,uint256)", [owner, 0]), to_checksum_address(account_word)


async def test_rule_an_undeployed_smart_account_signs_in_by_erc6492_for_the_engine_and_viem(
        siwx: Siwx, devchains: ChainsInfo) -> None:
    rpc_url = devchains.rpc_urls[CHAIN_ID]
    key, owner, factory, factory_data, account = _account(devchains)
    with devchains.rpc(CHAIN_ID) as rpc:
        assert rpc.code(account) in ("0x", "0x0")

    async def attempt(signature_of: Any) -> tuple[dict[str, Any], str, str]:
        text = make_message(await siwx.nonce(), address=account).to_text()
        signature = signature_of(text)
        return await siwx.verify(text, signature, address=account, rpc_url=rpc_url), text, signature

    accepted, text, wrapped = await attempt(lambda t: wrap_6492(factory, factory_data, sign(t, key)))
    assert accepted["ok"], accepted
    assert accepted["session"]["cacao"]["p"]["iss"] == f"did:pkh:eip155:{CHAIN_ID}:{account}"
    with devchains.rpc(CHAIN_ID) as rpc:
        assert rpc.code(account) in ("0x", "0x0")  # verified without deploying anything

    other_key = "0x" + secrets.token_hex(32)
    refused, _, forged = await attempt(lambda t: wrap_6492(factory, factory_data, sign(t, other_key)))
    assert (refused["ok"], refused["reason"]) == (False, "signature_mismatch")
    plain, _, unwrapped = await attempt(lambda t: sign(t, key))  # no code yet: nothing to ask
    assert (plain["ok"], plain["reason"]) == (False, "signature_mismatch")
    assert [s["id"] for s in await siwx.sessions(account)] == [accepted["session"]["id"]]

    assert _viem(rpc_url, [{"address": account, "message": text, "signature": wrapped},
                           {"address": account, "message": text, "signature": forged},
                           {"address": account, "message": text, "signature": unwrapped}]) == [True, False, False]
    assert owner != account


async def test_rule_a_deployed_smart_account_signs_in_by_erc1271_wrapped_or_not(
        siwx: Siwx, devchains: ChainsInfo) -> None:
    rpc_url = devchains.rpc_urls[CHAIN_ID]
    key, owner, factory, factory_data, account = _account(devchains)
    with devchains.rpc(CHAIN_ID) as rpc:
        rpc.send_call(rpc.accounts()[0], factory, "createAccount(address,uint256)", [owner, 0])
        assert rpc.code(account) not in ("0x", "0x0")
    cases = []
    for wrap in (False, True):
        text = make_message(await siwx.nonce(), address=account).to_text()
        signature = sign(text, key)
        if wrap:  # a signature made before deployment still verifies after it
            signature = wrap_6492(factory, factory_data, signature)
        result = await siwx.verify(text, signature, address=account, rpc_url=rpc_url)
        assert result["ok"], (wrap, result)
        cases.append({"address": account, "message": text, "signature": signature})
    text = make_message(await siwx.nonce(), address=account).to_text()
    wrong = await siwx.verify(text, sign(text), address=account, rpc_url=rpc_url)  # dev account #0 is not the owner
    assert (wrong["ok"], wrong["reason"]) == (False, "signature_mismatch")
    cases.append({"address": account, "message": text, "signature": sign(text)})
    assert _viem(rpc_url, cases) == [True, True, False]
    assert ADDRESS_0 != owner
