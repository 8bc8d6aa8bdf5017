"""Contract-wallet sign-in (EIP-1271): against a JSON-RPC node simulated with httpx's
MockTransport, and against the real Hardhat dev chain's DevContractWallet."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from eth_abi.abi import decode as abi_decode
from eth_keys.datatypes import Signature

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.verify import EIP1271_MAGIC_VALUE, personal_message_hash

from .conftest import ADDRESS_0, CHAIN_ID, KEY_0, KEY_1, Siwx, make_message, sign

WALLET = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"
RPC_URL = "http://node.test/rpc"
OPAQUE_SIGNATURE = "0x" + "01" * 10  # a contract-specific format (not 65 bytes) it accepts


@dataclass
class MockNode:
    """A JSON-RPC node holding one EIP-1271 wallet owned by dev account #0."""

    owner: str = ADDRESS_0
    calls: list[dict[str, Any]] = field(default_factory=list)
    down: bool = False

    def is_valid_signature(self, data: str) -> dict[str, Any]:
        assert data.startswith(EIP1271_MAGIC_VALUE)
        digest, signature = abi_decode(["bytes32", "bytes"], bytes.fromhex(data[10:]))
        if signature == bytes.fromhex(OPAQUE_SIGNATURE[2:]):
            return {"result": EIP1271_MAGIC_VALUE + "00" * 28}
        if len(signature) != 65:
            return {"error": {"code": 3, "message": "execution reverted: ECDSA: invalid signature length"}}
        v = signature[64] - 27
        signer = Signature(signature[:64] + bytes([v])).recover_public_key_from_msg_hash(digest)
        ok = signer.to_checksum_address() == self.owner
        return {"result": (EIP1271_MAGIC_VALUE if ok else "0xffffffff") + "00" * 28}

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(request)
        method, params = request["method"], request["params"]
        if method == "eth_getCode":
            body: dict[str, Any] = {"result": "0x6080604052" if params[0].lower() == WALLET.lower() else "0x"}
        elif method == "eth_call" and params[0]["to"].lower() == WALLET.lower():
            body = self.is_valid_signature(params[0]["data"])
        else:
            body = {"error": {"code": -32601, "message": "method not found"}}
        return {"jsonrpc": "2.0", "id": request["id"], **body}

    def handler(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        payload = json.loads(request.content)
        if isinstance(payload, list):
            return httpx.Response(200, json=[self.answer(item) for item in payload])
        return httpx.Response(200, json=self.answer(payload))


@pytest.fixture
def node() -> MockNode:
    return MockNode()


@pytest.fixture
async def mocked(siwx: Siwx, node: MockNode) -> AsyncIterator[Siwx]:
    async with httpx.AsyncClient(transport=httpx.MockTransport(node.handler)) as http:
        siwx.services = siwx_services(siwx.store, http, siwx.signer, clock=siwx.clock.now_ms)
        yield siwx


async def _contract_sign_in(siwx: Siwx, key: str | None, *, signature: str | None = None) -> dict[str, Any]:
    text = make_message(await siwx.nonce(), address=WALLET).to_text()
    return await siwx.verify(text, signature or sign(text, key or KEY_0), address=WALLET, rpc_url=RPC_URL)


async def test_contract_wallet_owner_signature_signs_in(mocked: Siwx, node: MockNode) -> None:
    result = await _contract_sign_in(mocked, KEY_0)
    assert result["ok"], result
    assert result["session"]["data"]["accountAddress"] == WALLET
    assert [s["id"] for s in await mocked.sessions(WALLET)] == [result["session"]["id"]]
    # the node was asked for the code, then isValidSignature(personal hash of the text, sig)
    methods = [call["method"] for call in node.calls]
    assert methods == ["eth_getCode", "eth_call"]
    data = node.calls[1]["params"][0]["data"]
    digest, _ = abi_decode(["bytes32", "bytes"], bytes.fromhex(data[10:]))
    assert digest == personal_message_hash(result["session"]["message"])


async def test_contract_specific_signature_format(mocked: Siwx) -> None:
    result = await _contract_sign_in(mocked, None, signature=OPAQUE_SIGNATURE)
    assert result["ok"], result


async def test_contract_wallet_rejects_another_signer(mocked: Siwx) -> None:
    result = await _contract_sign_in(mocked, KEY_1)
    assert (result["ok"], result["reason"]) == (False, "signature_mismatch")
    assert await mocked.sessions(WALLET) == []


async def test_contract_wallet_revert_counts_as_invalid(mocked: Siwx) -> None:
    result = await _contract_sign_in(mocked, None, signature="0x" + "02" * 20)
    assert (result["ok"], result["reason"]) == (False, "signature_mismatch")


async def test_node_down_is_reported(mocked: Siwx, node: MockNode) -> None:
    node.down = True
    result = await _contract_sign_in(mocked, KEY_1)
    assert (result["ok"], result["reason"]) == (False, "rpc_unavailable")
    assert await mocked.sessions(WALLET) == []


async def test_eoa_with_an_rpc_url(mocked: Siwx, node: MockNode) -> None:
    text = make_message(await mocked.nonce()).to_text()
    good = await mocked.verify(text, sign(text), rpc_url=RPC_URL)
    assert good["ok"] and node.calls == []  # recovery matched: no RPC at all

    text = make_message(await mocked.nonce()).to_text()
    wrong = await mocked.verify(text, sign(text, KEY_1), rpc_url=RPC_URL)
    assert wrong["reason"] == "signature_mismatch"
    short = await mocked.verify(text, sign(text)[:-2], rpc_url=RPC_URL)
    assert short["reason"] == "malformed_signature"
    assert [call["method"] for call in node.calls] == ["eth_getCode", "eth_getCode"]


@pytest.mark.chain
async def test_real_dev_chain_contract_wallet(siwx: Siwx, devchains: ChainsInfo) -> None:
    """DevContractWallet on the Hardhat node (fixtures/chain), owned by dev account #0."""
    entry = devchains.chain(CHAIN_ID)["eip1271Wallet"]
    wallet, rpc_url = entry["address"], devchains.rpc_urls[CHAIN_ID]
    assert entry["owner"] == ADDRESS_0

    async def attempt(key: str) -> dict[str, Any]:
        text = make_message(await siwx.nonce(), address=wallet).to_text()
        return await siwx.verify(text, sign(text, key), address=wallet, rpc_url=rpc_url)

    refused = await attempt(KEY_1)
    assert (refused["ok"], refused["reason"]) == (False, "signature_mismatch")
    assert await siwx.sessions(wallet) == []

    accepted = await attempt(KEY_0)
    assert accepted["ok"], accepted
    assert accepted["session"]["cacao"]["p"]["iss"] == f"did:pkh:eip155:{CHAIN_ID}:{wallet}"
    assert [s["id"] for s in await siwx.sessions(wallet)] == [accepted["session"]["id"]]

    # an EOA on the same node still signs in by recovery alone
    text = make_message(await siwx.nonce()).to_text()
    assert (await siwx.verify(text, sign(text), rpc_url=rpc_url))["ok"]
