"""A smart account's request before its approval, on the dev chain with the real bundler (issue
43 item 1, UserOperations): the engine asks alto to check the operation
(eth_estimateUserOperationGas through the EntryPoint) beside the node's eth_simulateV1 (Hardhat
does not answer it: the changes come from the call data). A send shows the bundler's fee (or
"Sponsored" when the paymaster pays), a batch with a reverting call shows the bundler's revert
and its reason, and with the bundler down the approval says its check is unavailable and can
still be approved, as an EOA's."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_abi.abi import encode
from eth_utils.crypto import keccak

from modalcore.embedded.approval_tree import read, render_text
from modalcore.embedded.service import userop_services
from modalcore.netports import free_port
from modalcore.server.approval import tree_bytes
from modalcore.server.config import dev_networks, parse_config
from modalcore.services.domain.handles import CHAIN_SIMULATE, EMBEDDED_SIGN, USEROP_CHECK
from modalcore.services.backend.table import default_services
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devchain.smart_accounts import dev_smart_accounts_section
from modalcore_dev.devmail import LocalSmtpServer

from .test_smart_account_chain import FUNDS, RECEIVER, _balance, _rpc
from .world import EmailWorld, open_wallet

pytestmark = pytest.mark.chain
CENT = 10**16


def _world(aa: AaChains, tmp_path: Path, smtp: LocalSmtpServer, email: str, *, sponsored: bool = False,
           bundler_down: bool = False) -> tuple[EmailWorld, str]:
    urls = {c: f"http://127.0.0.1:{free_port()}" for c in aa.bundler_urls} if bundler_down else aa.bundler_urls
    section = dev_smart_accounts_section(aa.chains.deployment, urls, ("test",) if sponsored else ("another",))
    config = parse_config({"networks": dev_networks(aa.chains.rpc_urls, aa.chains.deployment),
                           "smart_accounts": section})
    wallet = open_wallet(tmp_path / "e.db", smtp)
    world = EmailWorld(wallet, smtp, config=config, known_networks=config.known_networks(),
                       services=userop_services(wallet))
    world.http = httpx.AsyncClient()
    world.services[CHAIN_SIMULATE] = default_services(world.http)[CHAIN_SIMULATE]  # the node's, for real
    world.submit_email(email)
    world.type_code(world.code_for(email))
    world.settle_all()
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None and smart != world.h.model.smart.owner
    _rpc(aa, "hardhat_setBalance", [smart, hex(FUNDS)])
    return world, smart


def _outcome(world: EmailWorld) -> dict[str, Any]:
    outcome = read(tree_bytes(world.h.model))["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def _eth(fee: str) -> Decimal:
    assert fee.startswith("≈ ") and fee.endswith(" ETH"), fee
    return Decimal(fee[2:-4])


def _approve(world: EmailWorld) -> None:
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))


def test_rule_a_smart_account_send_shows_the_bundlers_fee(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, smart = _world(aachains, tmp_path, smtp, "uof@example.com")
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
    assert world.h.pending_calls(USEROP_CHECK)[-1].args_data["account"] == smart
    world.settle_all()  # the node (no eth_simulateV1 on Hardhat) and alto answer
    outcome = _outcome(world)
    assert outcome["note"] == "Outcome estimated from the call data; fee and revert check from the bundler"
    assert outcome["changes"] == ["\u22120.01 ETH"] and outcome["warnings"] == []
    # a deploying operation's gas (the account is not deployed yet): far more than a plain 21,000
    fee = _eth(outcome["fee"])
    gas_price = int(_rpc(aachains, "eth_gasPrice", []), 16)
    assert Decimal(100_000 * gas_price) / 10**18 < fee < Decimal(5_000_000 * gas_price) / 10**18
    assert f"    Fee {outcome['fee']}" in render_text(read(tree_bytes(world.h.model))).splitlines()
    before = _balance(aachains, RECEIVER)
    _approve(world)
    world.settle_all()
    assert _balance(aachains, RECEIVER) == before + CENT  # the operation checked is the one sent
    # the account paid its gas: what the fee shown said, give or take (the limits × the price
    # then; it pays for the gas it used at its block's price)
    paid = FUNDS - CENT - _balance(aachains, smart)
    assert paid / 2 < fee * 10**18 < paid * 2


def test_rule_a_sponsored_send_shows_the_visitor_pays_nothing(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, smart = _world(aachains, tmp_path, smtp, "uos@example.com", sponsored=True)
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
    world.settle_all()
    assert _outcome(world)["fee"] == "Network fee: Sponsored (you pay 0 ETH)"
    _approve(world)
    world.settle_all()
    assert _balance(aachains, smart) == FUNDS - CENT  # and the paymaster paid, as shown


def test_rule_a_reverting_call_in_a_batch_shows_the_bundlers_revert(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, smart = _world(aachains, tmp_path, smtp, "uor@example.com")
    demo = aachains.chains.token(31337, "DEMO")["address"]
    too_much = "0x" + (keccak(text="transfer(address,uint256)")[:4] + encode(["address", "uint256"],
                                                                              [RECEIVER, 10**30])).hex()
    batch = {"version": "2.0.0", "chainId": "0x7a69", "from": smart, "atomicRequired": True,
             "calls": [{"to": RECEIVER, "value": hex(CENT)}, {"to": demo, "data": too_much}]}
    world.ask_wallet("wallet_sendCalls", [batch])
    world.settle_all()
    outcome = _outcome(world)
    [warning] = outcome["warnings"]
    assert warning.startswith("This transaction will fail: the bundler's simulation reverted ("), warning
    assert "exceeds balance" in warning  # the token's own reason, decoded from the revert data
    assert outcome["changes"] == [] and outcome["fee"] == "Fee unavailable"
    assert outcome["note"].endswith("; fee and revert check from the bundler")


def test_rule_with_the_bundler_down_the_check_is_unavailable_and_approval_still_possible(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, _ = _world(aachains, tmp_path, smtp, "uod@example.com", bundler_down=True)
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
    world.settle_all()
    outcome = _outcome(world)
    assert outcome["note"] == "Outcome estimated from the call data; the bundler's check is unavailable"
    assert outcome["fee"] == "Fee unavailable" and outcome["changes"] == ["\u22120.01 ETH"]
    _approve(world)
    assert world.h.pending_calls(EMBEDDED_SIGN)  # approved: the signer is asked, as for the EOA
