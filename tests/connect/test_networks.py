"""Switching networks through the wallet, UnsupportedChain, placeholders (behaviour.md §4)."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.core.cmds import StartTimer

from .conftest import ADDRESS, dev_session


def _open_networks(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent("account/network")
    assert driver.model.router.view == "Networks"


def test_switching_asks_the_wallet_with_wallet_switch_ethereum_chain(driver: Harness) -> None:
    driver.connect_wallet()
    _open_networks(driver)
    driver.intent("networks/eip155:31338")
    assert driver.last_effect()["req"]["method"] == "wallet_switchEthereumChain"
    assert driver.last_effect()["req"]["params"] == [{"chainId": "0x7a6a"}]
    driver.answer_last(None)
    assert driver.model.networks.active == "eip155:31338"
    assert driver.model.accounts.get("eip155").caip_address == f"eip155:31338:{ADDRESS}"
    assert driver.model.router.view == "Account"


def test_unrecognised_chain_4902_adds_the_chain_with_its_parameters(driver: Harness) -> None:
    driver.connect_wallet()
    _open_networks(driver)
    driver.intent("networks/eip155:31338")
    driver.answer_last(code=4902, message="Unrecognized chain ID")
    effect = driver.last_effect()
    assert effect["req"]["method"] == "wallet_addEthereumChain"
    params = effect["req"]["params"][0]
    assert params["chainId"] == "0x7a6a"
    assert params["rpcUrls"] == ["http://127.0.0.1:8546"]
    assert params["chainName"] == "Hardhat Two"
    assert params["nativeCurrency"] == {"name": "Ether", "symbol": "ETH", "decimals": 18}
    assert "blockExplorerUrls" in params
    driver.answer_last(None)
    assert driver.model.networks.active == "eip155:31338"


def test_switching_resets_the_send_form(driver: Harness) -> None:
    from dataclasses import replace

    from modalcore.slices.send_form import SendState

    driver.connect_wallet()
    driver.session.model = replace(driver.model, send=SendState(amount="1", receiver=ADDRESS))
    _open_networks(driver)
    driver.intent("networks/eip155:31338")
    driver.answer_last(None)
    assert driver.model.send == SendState()


def test_switching_while_disconnected_changes_the_network_without_a_wallet() -> None:
    d = dev_session()
    d.intent("host", "switch_network", {"network": "eip155:31338"})
    assert d.model.networks.active == "eip155:31338"
    assert d.effects() == []


def test_wallet_moving_to_an_unrequested_chain_opens_unsupported_chain(driver: Harness) -> None:
    driver.connect_wallet()
    driver.wallet_event("uuid-1", "chainChanged", "0x1")
    assert driver.model.router.view == "UnsupportedChain"
    assert driver.model.modal.open is True
    assert driver.model.networks.unsupported == "eip155:1"
    assert driver.find("unsupported/eip155:31337") is not None


def test_unknown_chain_id_sets_an_unsupported_network_placeholder(driver: Harness) -> None:
    driver.connect_wallet()
    driver.wallet_event("uuid-1", "chainChanged", hex(424242))
    network = driver.model.networks.active_network
    assert network is not None and network.name == "Unknown Network (424242)"


def test_unsupported_chain_is_not_opened_when_unsupported_chains_are_allowed() -> None:
    d = dev_session({"allowUnsupportedChain": True})
    d.connect_wallet()
    d.wallet_event("uuid-1", "chainChanged", "0x1")
    assert d.model.router.view != "UnsupportedChain"


def test_unsupported_chain_is_not_opened_when_network_switching_is_off() -> None:
    d = dev_session({"enableNetworkSwitch": False})
    d.connect_wallet()
    d.wallet_event("uuid-1", "chainChanged", "0x1")
    assert d.model.router.view != "UnsupportedChain"


def test_go_back_from_unsupported_chain_closes_the_modal(driver: Harness) -> None:
    driver.connect_wallet()
    driver.wallet_event("uuid-1", "chainChanged", "0x1")
    driver.intent("header/close")
    assert driver.model.modal.open is False


def test_switching_back_from_unsupported_chain_closes_it(driver: Harness) -> None:
    driver.connect_wallet()
    driver.wallet_event("uuid-1", "chainChanged", "0x1")
    driver.intent("unsupported/eip155:31337")
    driver.answer_last(None)
    assert driver.model.networks.unsupported is None
    assert not driver.model.router.contains("UnsupportedChain")


def test_chain_changed_from_another_provider_is_ignored(driver: Harness) -> None:
    driver.connect_wallet()
    driver.wallet_event("someone-else", "chainChanged", "0x1")
    assert driver.model.networks.unsupported is None


def test_accounts_changed_to_empty_disconnects(driver: Harness) -> None:
    driver.connect_wallet()
    driver.wallet_event("uuid-1", "accountsChanged", [])
    assert driver.model.accounts.get("eip155").status == "disconnected"


def test_accounts_changed_updates_the_address_and_refetches(driver: Harness) -> None:
    driver.connect_wallet()
    calls = len(driver.calls("balances"))
    other = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
    driver.wallet_event("uuid-1", "accountsChanged", [other.lower()])
    assert driver.model.accounts.get("eip155").address == other
    assert len(driver.calls("balances")) == calls + 1
    _ = StartTimer


def test_opening_while_the_wallet_is_on_an_unsupported_network_shows_unsupported_chain(driver: Harness) -> None:
    """Closed on UnsupportedChain, then opened again (the connect button): the visitor is still on
    a network the app does not support, so the modal opens on UnsupportedChain (as AppKit's account
    button does), not on an Account whose Buy, Swap and Send act on that network."""
    driver.connect_wallet()
    driver.wallet_event("uuid-1", "chainChanged", "0x1")
    driver.intent("header/close")
    assert driver.model.modal.open is False
    driver.intent("host", "open")
    assert driver.model.router.view == "UnsupportedChain"
    assert driver.find("unsupported/eip155:31337") is not None
    assert driver.find("account/feature/send") is None


def test_opening_on_an_unsupported_network_shows_account_when_unsupported_chains_are_allowed() -> None:
    d = dev_session({"allowUnsupportedChain": True})
    d.connect_wallet()
    d.wallet_event("uuid-1", "chainChanged", "0x1")
    d.intent("host", "open")
    assert d.model.router.view == "Account"
