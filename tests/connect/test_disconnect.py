"""Disconnect (behaviour.md §4): bounded at 3000 ms, failures aggregated, state cleared."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.core.cmds import Track




def test_disconnect_clears_the_account_and_shows_connect(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/disconnect")
    assert driver.last_effect()["req"]["method"] == "wallet_revokePermissions"
    driver.answer_last(None)
    account = driver.model.accounts.get("eip155")
    assert account.status == "disconnected"
    assert account.address is None and account.balance is None and account.token_balance == ()
    assert account.connector_id is None
    assert driver.model.router.view == "Connect"
    assert driver.model.modal.open is False
    assert [f for f in driver.frames if f["t"] == "host_event" and f["kind"] == "account"][-1]["data"][
        "isConnected"] is False


def test_a_wallet_without_revoke_support_still_disconnects_without_error(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "disconnect")
    driver.answer_last(code=4200, message="Unsupported method")
    assert driver.model.accounts.get("eip155").status == "disconnected"
    assert not driver.model.snack.open


def test_disconnect_waits_at_most_3000_ms(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "disconnect")
    assert driver.model.accounts.get("eip155").status == "connected"
    driver.advance(2999)
    assert driver.model.accounts.get("eip155").status == "connected"
    driver.advance(1)
    assert driver.model.accounts.get("eip155").status == "disconnected"
    assert driver.model.snack.message == "Failed to disconnect"
    track = [c for c in driver.log if isinstance(c, Track)][-1]
    assert track.props["errors"] == ["Failed to disconnect chain eip155: timeout"]


def test_partial_failures_are_aggregated_into_one_error(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "disconnect")
    driver.answer_last(code=-32603, message="Internal error")
    assert driver.model.snack.message == "Failed to disconnect"
    track = [c for c in driver.log if isinstance(c, Track)][-1]
    assert track.event == "DISCONNECT_ERROR"
    assert track.props["errors"] == ["Failed to disconnect chain eip155: Internal error"]
    assert driver.model.accounts.get("eip155").status == "disconnected"


def test_a_late_wallet_answer_after_the_bound_changes_nothing(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "disconnect")
    eid = driver.last_effect()["eid"]
    driver.advance(3000)
    frames = len(driver.frames)
    driver.answer_last(None, eid=eid)
    assert len(driver.frames) == frames


def test_a_wallet_that_drops_the_account_before_answering_the_revoke_still_closes_the_modal(
        driver: Harness) -> None:
    """The Dev Wallet (like MetaMask) emits accountsChanged [] before it answers
    wallet_revokePermissions: the modal stayed open on Connect for it, while an email account's
    disconnect closed it. AppKit closes the modal after a disconnect, whatever the wallet."""
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/disconnect")
    connector = driver.model.connectors.get(driver.model.accounts.get("eip155").connector_id)
    assert connector is not None
    driver.wallet_event(connector.ref, "accountsChanged", [])
    assert driver.model.accounts.get("eip155").status == "disconnected"
    driver.answer_last(None)
    assert driver.model.router.view == "Connect"
    assert driver.model.modal.open is False
    assert not driver.model.snack.open
