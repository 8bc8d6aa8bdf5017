"""EIP-5792 and smart-account signatures on the dev chain with a real bundler (issue 32 items 4-5):
the host's wallet_sendCalls (approve DEMO to the Uniswap V2 router + swap DEMO for ETH) is one
approval and ONE UserOperation (executeBatch), sponsored; wallet_getCallsStatus reports it
confirmed with its transaction; a host personal_sign from the undeployed smart account is
ERC-6492-wrapped and verifies for the engine's verifier and for viem, and once deployed the
plain signature verifies under ERC-1271."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_abi.abi import encode
from eth_account.messages import encode_typed_data
from eth_utils.crypto import keccak

from modalcore.siwx.backend.verify import eip1271_valid, erc6492_valid, is_erc6492, personal_message_hash
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer
from tests.viem_dir import viem_dir

from .test_smart_account_chain import FUNDS, _balance, _code, _operations, _rpc, _signed_in
from .world import EmailWorld

pytestmark = pytest.mark.chain
HARNESS = Path(__file__).resolve().parents[1] / "siwx" / "viem" / "verify_message.mjs"
DEMO_HOLDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"  # dev account 1 (funded with DEMO)
AMOUNT = 10 * 10**18


def _selector(signature: str) -> str:
    return "0x" + keccak(text=signature)[:4].hex()


def _token_balance(aa: AaChains, token: str, owner: str) -> int:
    data = _selector("balanceOf(address)") + encode(["address"], [owner]).hex()
    return int(_rpc(aa, "eth_call", [{"to": token, "data": data}, "latest"]), 16)


def _host(world: EmailWorld, rid: str, method: str, params: list[Any]) -> dict[str, Any]:
    assert world.h.intent("host", "rpc", {"id": rid, "method": method, "params": params}) == "ok"
    world.settle_all()
    answer: dict[str, Any] = world.h.host_state("rpc")
    return answer


def _approve(world: EmailWorld) -> None:
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.settle_all()


def _viem(aa: AaChains, cases: list[dict[str, str]]) -> list[Any]:
    found = viem_dir()
    assert found is not None, "viem is not installed (bundler/node_modules) and MODALCORE_VIEM_DIR is unset"
    done = subprocess.run(["node", str(HARNESS)], input=json.dumps({"rpc": aa.chains.rpc_urls[31337], "cases": cases}),
                          capture_output=True, text=True, timeout=60,
                          env={"VIEM_DIR": str(found), "PATH": "/usr/bin:/bin:/usr/local/bin"})
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def _engine_accepts(aa: AaChains, address: str, text: str, signature: str) -> bool:
    digest = personal_message_hash(text)
    raw = bytes.fromhex(signature[2:])

    async def check() -> bool:
        async with httpx.AsyncClient() as http:
            url = aa.chains.rpc_urls[31337]
            if is_erc6492(raw):
                return await erc6492_valid(http, url, address, digest, raw)
            return await eip1271_valid(http, url, address, digest, raw)
    return asyncio.run(check())


def test_rule_a_host_sendcalls_approve_and_swap_is_one_approval_and_one_user_operation(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world = _signed_in(aachains, tmp_path, smtp, "cas@example.com", sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None and _code(aachains, smart) == "0x"
    parts = aachains.chains.chain(31337)
    demo = next(t["address"] for t in parts["tokens"] if t["symbol"] == "DEMO")
    router, weth = parts["uniswapV2"]["router"], parts["uniswapV2"]["weth"]
    _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
    with aachains.chains.rpc(31337) as rpc:
        rpc.send_call(DEMO_HOLDER, demo, "transfer(address,uint256)", [smart, AMOUNT])

    # before anything is sent: the message the app signs in with, from the undeployed account
    text = "Sign in to the swap app"
    assert world.h.intent("host", "rpc", {"id": "p1", "method": "personal_sign",
                                          "params": ["0x" + text.encode().hex(), smart]}) == "ok"
    _approve(world)
    signed = world.h.host_state("rpc")
    assert signed["ok"], signed
    wrapped = signed["result"]
    assert is_erc6492(bytes.fromhex(wrapped[2:]))
    assert _engine_accepts(aachains, smart, text, wrapped)

    calls = [
        {"to": demo, "data": _selector("approve(address,uint256)") + encode(["address", "uint256"], [router, AMOUNT]).hex()},
        {"to": router, "value": "0x0", "data": _selector("swapExactTokensForETH(uint256,uint256,address[],address,uint256)")
         + encode(["uint256", "uint256", "address[]", "address", "uint256"], [AMOUNT, 1, [demo, weth], smart, 2**40]).hex()},
    ]
    eth_before = _balance(aachains, smart)
    batch = {"version": "2.0.0", "chainId": "0x7a69", "from": smart, "atomicRequired": True, "calls": calls}
    assert world.h.intent("host", "rpc", {"id": "b1", "method": "wallet_sendCalls", "params": [batch]}) == "ok"
    assert world.h.view == "ApproveTransaction"  # ONE approval for both calls
    started = time.monotonic()
    _approve(world)
    sent_in = time.monotonic() - started
    sent = world.h.host_state("rpc")
    assert sent["id"] == "b1" and sent["ok"], sent
    calls_id = sent["result"]["id"]
    assert world.h.view != "ApproveTransaction"

    status: dict[str, Any] = {}
    for attempt in range(100):
        status = _host(world, f"s{attempt}", "wallet_getCallsStatus", [calls_id])
        assert status["ok"], status
        if status["result"]["status"] != 100:
            break
        world.loop.run_until_complete(asyncio.sleep(0.1))
    result = status["result"]
    print(f"Approve → calls id {1000 * sent_in:.0f} ms; → getCallsStatus 200 {1000 * (time.monotonic() - started):.0f} ms")
    assert (result["status"], result["atomic"], result["chainId"], result["id"]) == (200, True, "0x7a69", calls_id)
    [receipt] = result["receipts"]
    tx = _rpc(aachains, "eth_getTransactionReceipt", [receipt["transactionHash"]])
    assert tx["status"] == "0x1" and receipt["blockHash"] == tx["blockHash"]
    assert len(_operations(aachains, smart)) == 1  # one UserOperation
    assert _token_balance(aachains, demo, smart) == 0  # approved and swapped, all or nothing
    assert _balance(aachains, smart) > eth_before  # the swap's ETH, gas sponsored
    assert _code(aachains, smart) != "0x"  # deployed by that operation

    # deployed: the plain signature verifies under ERC-1271, the one made before still by ERC-6492
    world.settle_all()
    assert world.h.intent("host", "rpc", {"id": "p2", "method": "personal_sign",
                                          "params": ["0x" + text.encode().hex(), smart]}) == "ok"
    _approve(world)
    plain = world.h.host_state("rpc")["result"]
    assert not is_erc6492(bytes.fromhex(plain[2:])) and _engine_accepts(aachains, smart, text, plain)
    assert _viem(aachains, [{"address": smart, "message": text, "signature": wrapped},
                            {"address": smart, "message": text, "signature": plain}]) == [True, True]

    # typed data from the deployed account: its ERC-1271 accepts the EIP-712 digest's signature
    typed = {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
                       "Order": [{"name": "amount", "type": "uint256"}]},
             "primaryType": "Order", "domain": {"name": "Swap app", "chainId": 31337}, "message": {"amount": 7}}
    assert world.h.intent("host", "rpc", {"id": "t1", "method": "eth_signTypedData_v4",
                                          "params": [smart, json.dumps(typed)]}) == "ok"
    _approve(world)
    typed_signature = world.h.host_state("rpc")["result"]
    digest = encode_typed_data(full_message=typed)
    digest_bytes = keccak(b"\x19" + digest.version + digest.header + digest.body)

    async def typed_ok() -> bool:
        async with httpx.AsyncClient() as http:
            return await eip1271_valid(http, aachains.chains.rpc_urls[31337], smart, digest_bytes,
                                       bytes.fromhex(typed_signature[2:]))
    assert asyncio.run(typed_ok())


def test_rule_a_batch_that_deploys_the_smart_account_tells_the_host_without_a_reload(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    """Issue 46: wallet_sendCalls answers `{id}` when the bundler took the operation, before the
    chain has the account's code. The engine follows the operation itself (the host never asks
    wallet_getCallsStatus here) and reads the account again once it is included: the host's
    account event says `smartAccountDeployed: true`, as after a reload."""
    from modalcore.flows.calls import DEPLOY_POLL_MS, DEPLOY_POLLS

    world = _signed_in(aachains, tmp_path, smtp, "dep@example.com", sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None and _code(aachains, smart) == "0x"
    assert world.h.host_state("account")["smartAccountDeployed"] is False
    _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
    batch = {"version": "2.0.0", "chainId": "0x7a69", "from": smart, "atomicRequired": True,
             "calls": [{"to": DEMO_HOLDER, "value": "0x1"}]}
    assert world.h.intent("host", "rpc", {"id": "d1", "method": "wallet_sendCalls", "params": [batch]}) == "ok"
    _approve(world)
    sent = world.h.host_state("rpc")
    assert sent["id"] == "d1" and sent["ok"], sent
    for _ in range(DEPLOY_POLLS):
        if world.h.host_state("account")["smartAccountDeployed"]:
            break
        world.loop.run_until_complete(asyncio.sleep(0.1))  # the bundler's time, on the real clock
        world.h.advance(DEPLOY_POLL_MS)  # the engine's next look, on the session's clock
        world.settle_all()
    assert _code(aachains, smart) != "0x" and len(_operations(aachains, smart)) == 1
    account = world.h.host_state("account")
    assert account["smartAccountDeployed"] is True and account["address"] == smart
    assert account["preferredAccountType"] == "smartAccount"
    assert world.h.model.smart.accounts[0].deployed
    assert "wallet_getCallsStatus" not in str(world.h.frames_of("host_event"))  # nobody asked the host's way
