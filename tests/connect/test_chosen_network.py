"""The network chosen before connecting is the one the visitor lands on (issue 39 item 7): a
wallet that answers with another chain is asked to switch at once (AppKit connects with the
active chain), and a WalletConnect proposal lists the chosen network first."""

from __future__ import annotations

from modalcore.enginetest import Harness
from tests.walletconnect.test_engine_views import ADDRESS as WC_ADDRESS
from tests.walletconnect.test_engine_views import PEER, harness as wc_harness, uri

from .conftest import dev_session


def test_a_wallet_on_another_chain_is_asked_at_once_for_the_network_chosen_before_connecting() -> None:
    h = dev_session()
    h.host("switch_network", network="eip155:31338")  # chosen while disconnected (the network button)
    assert h.model.networks.active == "eip155:31338"
    h.connect_wallet(chain_id=hex(31337))  # the Dev Wallet sits on Hardhat
    switch = h.pending_effect("wallet_switchEthereumChain")
    assert switch["req"]["params"] == [{"chainId": hex(31338)}]
    h.answer("wallet_switchEthereumChain", None)
    assert h.model.networks.active == "eip155:31338"
    assert h.model.accounts.get("eip155").caip_address is not None
    assert h.model.accounts.get("eip155").caip_address.startswith("eip155:31338:")  # type: ignore[union-attr]


def test_without_a_choice_the_wallet_keeps_its_chain_and_nothing_is_asked() -> None:
    h = dev_session()
    h.connect_wallet(chain_id=hex(31338))
    assert h.model.networks.active == "eip155:31338"
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "wallet_switchEthereumChain"]


def test_a_choice_is_spent_by_the_connect_it_was_made_for() -> None:
    h = dev_session()
    h.host("switch_network", network="eip155:31338")
    h.connect_wallet(chain_id=hex(31338))  # already there: nothing to ask
    assert h.model.networks.chosen is None
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "wallet_switchEthereumChain"]


def test_a_walletconnect_proposal_lists_the_chosen_network_first_and_the_session_is_switched() -> None:
    h: Harness = wc_harness()
    h.host("switch_network", network="eip155:31338")
    h.host("open")
    h.press("connect/wallet/walletConnect")
    pair = h.pending_relay("wc_pair")
    assert pair.req["networks"] == ["eip155:31338", "eip155:31337"]
    h.relay("wc_pair", {"uri": uri(), "expiry": 240})
    h.relay("wc_approval", {"accounts": [WC_ADDRESS.lower()], "chain": "eip155:31337", "peer": PEER})
    assert h.pending_relay("wallet_switchEthereumChain")
    h.relay("wallet_switchEthereumChain", None)
    assert h.model.networks.active == "eip155:31338"
