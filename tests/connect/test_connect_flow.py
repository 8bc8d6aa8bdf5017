"""Connecting a browser wallet, rejection and retry, recent wallets, reload re-sync."""

from __future__ import annotations

from modalcore.slices.connectors import (
    Connector,
    ConnectorsState,
    connect_method_order,
    ordered,
    remember_recent,
)
from modalcore.wire.frames import AnnouncedWallet

from .conftest import ADDRESS, DEV_WALLET, Driver


def test_choosing_a_wallet_asks_it_for_accounts_then_chain(driver: Driver) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    assert driver.model.router.view == "ConnectingExternal"
    assert driver.last_effect()["req"] == {"connector": "uuid-1", "method": "eth_requestAccounts", "params": []}
    driver.answer([ADDRESS.lower()])
    assert driver.last_effect()["req"]["method"] == "eth_chainId"
    driver.answer("0x7a69")
    account = driver.model.accounts.get("eip155")
    assert account.status == "connected"
    assert account.address == ADDRESS
    assert account.caip_address == f"eip155:31337:{ADDRESS}"
    assert driver.model.modal.open is False
    assert driver.calls("balances")


def test_connected_host_event_reports_the_account(driver: Driver) -> None:
    driver.connect()
    account_events = [f for f in driver.frames if f["t"] == "host_event" and f["kind"] == "account"]
    assert account_events[-1]["data"]["isConnected"] is True
    assert account_events[-1]["data"]["address"] == ADDRESS


def test_opening_after_connect_shows_account(driver: Driver) -> None:
    driver.connect()
    driver.intent("host", "open")
    assert driver.model.router.view == "Account"


def test_user_rejection_shows_declined_and_a_retry_button(driver: Driver) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    driver.answer(error=(4001, "User rejected the request."))
    assert driver.node("external/status").p["text"] == "Connection declined"
    assert driver.node("external/retry") is not None
    assert driver.model.accounts.get("eip155").status == "disconnected"
    effects_before = len(driver.effects())
    driver.intent("external/retry")
    assert len(driver.effects()) == effects_before + 1
    assert driver.last_effect()["req"]["method"] == "eth_requestAccounts"


def test_codes_5000_and_5700_to_5760_count_as_user_rejection() -> None:
    for code in (5000, 5700, 5730, 5760):
        d = Driver()
        d.intent("host", "open")
        d.intent("connect/wallet/dev.modalcore.devwallet")
        d.answer(error=(code, "rejected"))
        assert d.node("external/status").p["text"] == "Connection declined"


def test_other_wallet_errors_show_their_readable_message(driver: Driver) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    driver.answer(error=(-32002, "Request of type 'wallet_requestPermissions' already pending"))
    assert "already pending" in driver.node("external/status").p["text"]


def test_a_wallet_answering_garbage_accounts_does_not_connect(driver: Driver) -> None:
    driver.intent("host", "open")
    driver.intent("connect/wallet/dev.modalcore.devwallet")
    driver.answer(["not-an-address"])
    assert driver.model.accounts.get("eip155").status == "disconnected"
    assert driver.node("external/retry") is not None


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
    d = Driver(wallets=[injected, DEV_WALLET])
    assert [c.id for c in d.model.connectors.items] == ["dev.modalcore.devwallet"]


def test_reload_resyncs_with_eth_accounts_without_a_prompt(driver: Driver) -> None:
    driver.connect()
    fresh = AnnouncedWallet(uuid="uuid-2", name="Dev Wallet", rdns="dev.modalcore.devwallet")
    driver._take(driver.session.welcome("token", resumed=True, last=None, wallets=[fresh]))
    assert driver.model.accounts.get("eip155").status == "connecting"
    assert driver.last_effect()["req"] == {"connector": "uuid-2", "method": "eth_accounts", "params": []}
    driver.answer([ADDRESS.lower()])
    driver.answer("0x7a69")
    assert driver.model.accounts.get("eip155").status == "connected"
    methods = [e["req"]["method"] for e in driver.effects()]
    assert methods.count("eth_requestAccounts") == 1


def test_reload_with_no_accounts_from_the_wallet_disconnects(driver: Driver) -> None:
    driver.connect()
    driver._take(driver.session.welcome("token", resumed=True, last=None, wallets=[DEV_WALLET]))
    driver.answer([])
    account = driver.model.accounts.get("eip155")
    assert account.status == "disconnected" and account.address is None


def test_reconnect_of_the_same_page_does_not_resync(driver: Driver) -> None:
    driver.connect()
    effects = len(driver.effects())
    driver._take(driver.session.welcome("token", resumed=True, last=driver.session.out_seq, wallets=[DEV_WALLET]))
    assert len(driver.effects()) == effects
    assert driver.model.accounts.get("eip155").status == "connected"


def test_every_view_gives_the_dialog_an_accessible_name(driver: Driver) -> None:
    driver.intent("host", "open")
    assert driver.node("modal").p["label"] == "Connect Wallet"
    driver.connect()
    driver.intent("host", "open")
    assert driver.node("modal").p["label"] == "Account"
