"""The embedded wallet's smart account on the dev chain with a real bundler (issue 32): an email
sign-in shows its counterfactual smart account; an approved eth_sendTransaction from it is one
UserOperation, deployed by it, sponsored by the VerifyingPaymaster when the operator's policy
allows (the account's ETH moves by the value only), paid by the account when it does not; the
answer is the transaction hash of the operation's receipt; after a switch to the EOA the same
request is a plain transaction."""

from __future__ import annotations

import asyncio
import statistics
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_utils.crypto import keccak

from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devchain.rpc import encode_call
from modalcore_dev.devchain.smart_accounts import dev_smart_accounts_section
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.services.backend.history import fetch_history
from modalcore.server.config import EngineConfig, dev_networks, parse_config
from modalcore.slices.embedded import ApprovalDecided
from modalcore.slices.smart_account import PressedSwitchAccountType

from .world import EmailWorld, open_wallet

pytestmark = pytest.mark.chain
RECEIVER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"  # dev account 5
CENT = 10**16  # 0.01 ETH
FUNDS = 10**18
USER_OPERATION_EVENT = "0x" + keccak(text="UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)").hex()


def smart_accounts_section(aa: AaChains, *, sponsored_projects: list[str]) -> dict[str, Any]:
    """`[smart_accounts]` for the dev chains and their bundlers."""
    return dev_smart_accounts_section(aa.chains.deployment, aa.bundler_urls, tuple(sponsored_projects))


def config_for(aa: AaChains, *, sponsored_projects: list[str]) -> EngineConfig:
    return parse_config({"networks": dev_networks(aa.chains.rpc_urls, aa.chains.deployment),
                         "smart_accounts": smart_accounts_section(aa, sponsored_projects=sponsored_projects)})


def _rpc(aa: AaChains, method: str, params: list[Any]) -> Any:
    with aa.chains.rpc(31337) as rpc:
        return rpc.call(method, params)


def _balance(aa: AaChains, address: str) -> int:
    return int(_rpc(aa, "eth_getBalance", [address, "latest"]), 16)


def _code(aa: AaChains, address: str) -> str:
    return str(_rpc(aa, "eth_getCode", [address, "latest"]))


def _operations(aa: AaChains, sender: str) -> list[dict[str, Any]]:
    entry_point = aa.smart_accounts(31337)["entryPoint"]
    topic = "0x" + "0" * 24 + sender[2:].lower()
    logs: list[dict[str, Any]] = _rpc(aa, "eth_getLogs", [{"address": entry_point, "fromBlock": "0x0",
                                                         "toBlock": "latest", "topics": [USER_OPERATION_EVENT, None, topic]}])
    return logs


def _signed_in(aa: AaChains, tmp_path: Path, smtp: LocalSmtpServer, email: str, *,
               sponsored_projects: list[str]) -> EmailWorld:
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp,
                       config=config_for(aa, sponsored_projects=sponsored_projects),
                       known_networks=config_for(aa, sponsored_projects=[]).known_networks())
    world.submit_email(email)
    world.type_code(world.code_for(email))
    world.settle_all()
    return world


def _approve_send(world: EmailWorld, to: str, value: int) -> tuple[dict[str, Any], float]:
    world.ask_wallet("eth_sendTransaction", [{"to": to, "value": hex(value)}])
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    started = time.monotonic()
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    elapsed = time.monotonic() - started
    assert settled.ok, settled.error
    world.settle_all()  # the account's code read again
    return settled.result, elapsed


def test_a_sponsored_send_from_the_smart_account_is_one_user_operation(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world = _signed_in(aachains, tmp_path, smtp, "sia@example.com", sponsored_projects=["test"])
    account = world.h.model.accounts.get("eip155")
    smart = account.address
    assert smart is not None and smart != world.h.model.smart.owner
    assert account.preferred_account_type == "smartAccount" and not account.smart_account_deployed
    assert _code(aachains, smart) == "0x"  # counterfactual: nothing deployed by the sign-in
    _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
    receiver_before = _balance(aachains, RECEIVER)

    result, elapsed = _approve_send(world, RECEIVER, CENT)

    receipt = _rpc(aachains, "eth_getTransactionReceipt", [result["result"]])
    assert receipt is not None and receipt["status"] == "0x1"  # the answer is the bundle's transaction
    assert _balance(aachains, RECEIVER) == receiver_before + CENT
    assert _balance(aachains, smart) == FUNDS - CENT  # the paymaster paid the gas
    assert _code(aachains, smart) != "0x"  # deployed by its first operation
    assert len(_operations(aachains, smart)) == 1
    assert world.h.model.accounts.get("eip155").smart_account_deployed  # read from the chain again
    assert world.h.host_state("account")["smartAccountDeployed"] is True
    print(f"approve → receipt (sponsored, deploying): {1000 * elapsed:.0f} ms")
    # Activity knows it by its transaction: a send of 0.01 ETH from the account to the receiver
    [sent] = asyncio.run(_history(aachains, smart))["data"]
    assert sent["id"] == result["result"] and sent["metadata"]["operationType"] == "send"
    assert sent["metadata"]["sentFrom"] == smart and sent["metadata"]["sentTo"] == RECEIVER
    assert sent["metadata"]["status"] == "confirmed"
    assert [(t["direction"], t["quantity"]["numeric"]) for t in sent["transfers"]] == [("out", "0.01")]


async def _history(aa: AaChains, address: str) -> Any:
    async with httpx.AsyncClient() as http:
        return await fetch_history(http, rpc_url=aa.chains.rpc_urls[31337], address=address, chain="eip155:31337")


def test_approve_to_receipt_of_sponsored_sends(aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    """The figure for issue 32: Approve → the receipt's transaction hash, five sponsored sends."""
    world = _signed_in(aachains, tmp_path, smtp, "sol@example.com", sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
    times = [_approve_send(world, RECEIVER, CENT)[1] for _ in range(5)]
    assert len(_operations(aachains, smart)) == 5
    assert _balance(aachains, smart) == FUNDS - 5 * CENT
    print(f"approve → receipt p50: {1000 * statistics.median(times):.0f} ms "
          f"(first, deploying: {1000 * times[0]:.0f} ms)")


def test_a_policy_that_refuses_sponsorship_makes_the_account_pay(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world = _signed_in(aachains, tmp_path, smtp, "pay@example.com", sponsored_projects=["another-project"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
    receiver_before = _balance(aachains, RECEIVER)
    result, _ = _approve_send(world, RECEIVER, CENT)
    assert _rpc(aachains, "eth_getTransactionReceipt", [result["result"]])["status"] == "0x1"
    assert _balance(aachains, RECEIVER) == receiver_before + CENT
    assert _balance(aachains, smart) < FUNDS - CENT  # the account paid its gas
    assert len(_operations(aachains, smart)) == 1


def test_after_switching_to_the_eoa_a_send_is_a_plain_transaction(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world = _signed_in(aachains, tmp_path, smtp, "eve@example.com", sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    owner = world.h.model.smart.owner
    world.h.deliver(PressedSwitchAccountType())
    assert world.h.model.accounts.get("eip155").address == owner
    _rpc(aachains, "hardhat_setBalance", [owner, hex(FUNDS)])
    result, _ = _approve_send(world, RECEIVER, CENT)
    receipt = _rpc(aachains, "eth_getTransactionReceipt", [result["result"]])
    assert receipt["from"].lower() == owner.lower() and receipt["to"].lower() == RECEIVER.lower()
    assert smart is not None and _code(aachains, smart) == "0x" and _operations(aachains, smart) == []


ACCOUNT_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"  # dev account 0 (holds the test tokens)


def test_a_token_send_from_the_smart_account_is_its_send_in_activity(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world = _signed_in(aachains, tmp_path, smtp, "tok@example.com", sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    tusd = aachains.chains.token(31337, "TUSD")["address"]
    with aachains.chains.rpc(31337) as rpc:
        rpc.send_call(ACCOUNT_0, tusd, "transfer(address,uint256)", [smart, 100_000_000])
        before = rpc.erc20_balance(tusd, RECEIVER)
    data = "0xa9059cbb" + "0" * 24 + RECEIVER[2:].lower() + hex(12_500_000)[2:].rjust(64, "0")
    world.ask_wallet("eth_sendTransaction", [{"to": tusd, "data": data}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    assert settled.ok, settled.error
    with aachains.chains.rpc(31337) as rpc:
        assert rpc.erc20_balance(tusd, RECEIVER) == before + 12_500_000
        assert rpc.erc20_balance(tusd, smart) == 87_500_000
    sent, received = asyncio.run(_history(aachains, smart))["data"]
    assert sent["id"] == settled.result["result"] and sent["metadata"]["operationType"] == "send"
    assert [(t["direction"], t["quantity"]["numeric"]) for t in sent["transfers"]] == [("out", "12.5")]
    assert received["metadata"]["operationType"] == "receive"


def test_a_spent_sponsoring_budget_refuses_and_sends_nothing(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    section = smart_accounts_section(aachains, sponsored_projects=["test"])
    section["sponsor"]["budget_wei_per_day"] = 1  # less than any operation's most it can cost
    config = parse_config({"networks": dev_networks(aachains.chains.rpc_urls, aachains.chains.deployment),
                           "smart_accounts": section})
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp, config=config,
                       known_networks=config.known_networks())
    world.submit_email("ned@example.com")
    world.type_code(world.code_for("ned@example.com"))
    world.settle_all()
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    assert not settled.ok and "budget_spent" in settled.error
    assert world.h.model.embedded.request is None  # answered (refused) to the asker
    assert _balance(aachains, smart) == FUNDS and _code(aachains, smart) == "0x"
    assert _operations(aachains, smart) == []


def _approved(world: EmailWorld, to: str, data: str) -> str:
    """eth_sendTransaction from the smart account, approved: the bundle's transaction hash."""
    world.ask_wallet("eth_sendTransaction", [{"to": to, "data": data}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    assert settled.ok, settled.error
    world.settle_all()
    return str(settled.result["result"])


def test_a_token_to_eth_swap_by_user_operation_is_a_trade_with_the_eth_paid_out(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    """The router pays the ETH of a token→ETH swap as an internal transfer inside the bundle (not
    the account's own transaction): Activity still reads it from the WETH `Withdrawal`, so the
    swap is one "trade" with both legs, not a send of the token."""
    world = _signed_in(aachains, tmp_path, smtp, "trd@example.com", sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    demo = aachains.chains.token(31337, "DEMO")["address"]
    market = aachains.chains.chain(31337)["uniswapV2"]
    amount = 10 * 10**18
    with aachains.chains.rpc(31337) as rpc:
        rpc.send_call(ACCOUNT_0, demo, "transfer(address,uint256)", [smart, amount])
        (amounts,) = rpc.eth_call(market["router"], "getAmountsOut(uint256,address[])",
                                  [amount, [demo, market["weth"]]], ["uint256[]"])
    _approved(world, demo, encode_call("approve(address,uint256)", [market["router"], amount]))
    swapped = _approved(world, market["router"], encode_call(
        "swapExactTokensForETH(uint256,uint256,address[],address,uint256)",
        [amount, 0, [demo, market["weth"]], smart, 2**40]))
    newest = asyncio.run(_history(aachains, smart))["data"][0]
    assert newest["id"] == swapped and newest["metadata"]["operationType"] == "trade"
    legs = [(t["fungible_info"]["symbol"], t["direction"], t["quantity"]["numeric"]) for t in newest["transfers"]]
    eth_out = format(Decimal(int(amounts[-1])).scaleb(-18).normalize(), "f")
    assert legs == [("DEMO", "out", "10"), ("ETH", "in", eth_out)]
