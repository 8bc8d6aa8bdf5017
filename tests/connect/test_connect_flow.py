"""Connecting a browser wallet, rejection and retry, recent wallets, reload re-sync."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.slices.connectors import (
    Connector,
    ConnectorsState,
    connect_method_order,
    ordered,
    remember_recent,
)
from modalcore.wire.frames import AnnouncedWallet

from .conftest import ADDRESS, DEV_WALLET, dev_session


def test_choosing_a_wallet_asks_it_for_accounts_then_chain(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    assert driver.model.router.view == "ConnectingExternal"
    assert driver.last_effect()["req"] == {"connector": "uuid-1", "method": "eth_requestAccounts", "params": []}
    driver.answer_last([ADDRESS.lower()])
    assert driver.last_effect()["req"]["method"] == "eth_chainId"
    driver.answer_last("0x7a69")
    account = driver.model.accounts.get("eip155")
    assert account.status == "connected"
    assert account.address == ADDRESS
    assert account.caip_address == f"eip155:31337:{ADDRESS}"
    assert driver.model.modal.open is False
    assert driver.calls("balances")


def test_connected_host_event_reports_the_account(driver: Harness) -> None:
    driver.connect_wallet()
    account_events = [f for f in driver.frames if f["t"] == "host_event" and f["kind"] == "account"]
    assert account_events[-1]["data"]["isConnected"] is True
    assert account_events[-1]["data"]["address"] == ADDRESS


def test_opening_after_connect_shows_account(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "open")
    assert driver.model.router.view == "Account"


def test_user_rejection_shows_declined_and_a_retry_button(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    driver.answer_last(code=4001, message="User rejected the request.")
    assert driver.node("external/status").p["text"] == "Connection declined"
    assert driver.find("external/retry") is not None
    assert driver.model.accounts.get("eip155").status == "disconnected"
    effects_before = len(driver.effects())
    driver.intent("external/retry")
    assert len(driver.effects()) == effects_before + 1
    assert driver.last_effect()["req"]["method"] == "eth_requestAccounts"


def test_codes_5000_and_5700_to_5760_count_as_user_rejection() -> None:
    for code in (5000, 5700, 5730, 5760):
        d = dev_session()
        d.intent("host", "open")
        d.intent("connect/wallet/dev.modalcore.devwallet")
        d.answer_last(code=code, message="rejected")
        assert d.node("external/status").p["text"] == "Connection declined"


def test_other_wallet_errors_show_their_readable_message(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    driver.answer_last(code=-32002, message="Request of type 'wallet_requestPermissions' already pending")
    assert "already pending" in driver.node("external/status").p["text"]


def test_a_wallet_answering_garbage_accounts_does_not_connect(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    driver.answer_last(["not-an-address"])
    assert driver.model.accounts.get("eip155").status == "disconnected"
    assert driver.find("external/retry") is not None


def test_recent_wallets_at_most_two_newest_first_deduplicated() -> None:
    state = ConnectorsState()
    for connector_id in ("a", "b", "a", "c"):
        state = remember_recent(state, connector_id)
    assert state.recent == ("c", "a")


def test_connector_order_puts_recent_before_injected() -> None:
    items = (
        Connector("x", "x", "X", "ANNOUNCED"),
        Connector("y", "y", "Y", "ANNOUNCED"),
        Connector("wc", "wc", "WalletConnect", "WALLET_CONNECT"),
    )
    state = ConnectorsState(items=items, recent=("y",))
    assert [c.id for c in ordered(state)] == ["wc", "y", "x"]


def test_connect_method_order_default_and_with_a_detected_wallet() -> None:
    assert connect_method_order(None, False) == ("email", "social", "wallet")
    assert connect_method_order(None, True) == ("wallet", "email", "social")
    assert connect_method_order(("social", "wallet"), True) == ("social", "wallet")


def test_announced_wallet_replaces_the_legacy_injected_connector() -> None:
    injected = AnnouncedWallet(uuid="injected", name="Browser Wallet")
    d = dev_session(wallets=[injected, DEV_WALLET])
    assert [c.id for c in d.model.connectors.items] == ["dev.modalcore.devwallet"]


def test_reload_resyncs_with_eth_accounts_without_a_prompt(driver: Harness) -> None:
    driver.connect_wallet()
    fresh = AnnouncedWallet(uuid="uuid-2", name="Dev Wallet", rdns="dev.modalcore.devwallet")
    driver.rejoin(last=None, wallets=[fresh.model_dump()])
    assert driver.model.accounts.get("eip155").status == "connecting"
    assert driver.last_effect()["req"] == {"connector": "uuid-2", "method": "eth_accounts", "params": []}
    driver.answer_last([ADDRESS.lower()])
    driver.answer_last("0x7a69")
    assert driver.model.accounts.get("eip155").status == "connected"
    methods = [e["req"]["method"] for e in driver.effects()]
    assert methods.count("eth_requestAccounts") == 1


def test_reload_with_no_accounts_from_the_wallet_disconnects(driver: Harness) -> None:
    driver.connect_wallet()
    driver.rejoin(last=None)
    driver.answer_last([])
    account = driver.model.accounts.get("eip155")
    assert account.status == "disconnected" and account.address is None


def test_reconnect_of_the_same_page_does_not_resync(driver: Harness) -> None:
    driver.connect_wallet()
    effects = len(driver.effects())
    driver.rejoin(last=driver.session.out_seq)
    assert len(driver.effects()) == effects
    assert driver.model.accounts.get("eip155").status == "connected"


def test_every_view_gives_the_dialog_an_accessible_name(driver: Harness) -> None:
    driver.intent("host", "open")
    assert driver.node("modal").p["label"] == "Connect Wallet"
    driver.connect_wallet()
    driver.intent("host", "open")
    assert driver.node("modal").p["label"] == "Account"
