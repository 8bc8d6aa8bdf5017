"""eth_sendTransaction by the embedded wallet on the Hardhat chain (issue 15 §3-4): the funded
embedded address sends after the approval, one transaction lands on chain; a rejection or a
refused method sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.server.config import dev_networks, parse_config
from modalcore.slices.embedded import ApprovalDecided

from .world import EmailWorld, open_wallet

pytestmark = pytest.mark.chain
RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dC79C8"
ONE_TENTH = 10**17


def _world(chains: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> tuple[EmailWorld, str]:
    config = parse_config({"networks": dev_networks(chains.rpc_urls, chains.deployment)})
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp, config=config)
    address = world.sign_in("sam@example.com")
    with chains.rpc(31337) as rpc:
        rpc.call("hardhat_setBalance", [address, hex(10**18)])
    return world, address


def _nonce(chains: ChainsInfo, address: str) -> int:
    with chains.rpc(31337) as rpc:
        return int(rpc.call("eth_getTransactionCount", [address, "latest"]), 16)


def _balance(chains: ChainsInfo, address: str) -> int:
    with chains.rpc(31337) as rpc:
        return int(rpc.call("eth_getBalance", [address, "latest"]), 16)


def test_an_approved_send_puts_one_transaction_on_chain(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    chains = devchain
    world, address = _world(chains, tmp_path, smtp)
    before = _balance(chains, RECEIVER)
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(ONE_TENTH)}])
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    assert _nonce(chains, address) == 0  # nothing is sent before the approval
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    assert settled.ok, settled.error
    tx_hash = settled.result["result"]
    with chains.rpc(31337) as rpc:
        receipt = rpc.call("eth_getTransactionReceipt", [tx_hash])
    assert receipt["status"] == "0x1"
    assert receipt["from"].lower() == address.lower() and receipt["to"].lower() == RECEIVER.lower()
    assert _nonce(chains, address) == 1
    assert _balance(chains, RECEIVER) == before + ONE_TENTH
    assert world.h.model.embedded.request is None


def test_a_rejected_send_sends_nothing(devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    chains = devchain
    world, address = _world(chains, tmp_path, smtp)
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(ONE_TENTH)}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=False))
    assert world.run_calls() == []
    assert _nonce(chains, address) == 0


def test_a_send_without_a_0x_to_is_refused_by_the_signer(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    chains = devchain
    world, address = _world(chains, tmp_path, smtp)
    world.ask_wallet("eth_sendTransaction", [{"to": "70997970C51812dc3A010C7d01b50e0d17dC79C8", "value": "0x1"}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [settled] = world.run_calls()
    assert not settled.ok and "0x-prefixed 'to'" in settled.error
    assert _nonce(chains, address) == 0
