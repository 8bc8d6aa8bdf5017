"""Send and Swap drafts belong to the account and network they were made for (behaviour.md §3 "Send
state": switching network resets the send form): a disconnect, another account or another
namespace starts an empty form, never one prefilled with the last owner's amount and receiver."""

from __future__ import annotations

from modalcore.enginetest import Harness

from ..swap.harness import on_swap, typed
from .conftest import OTHER
from .test_send_rules import fill, ready


def test_a_disconnect_drops_the_send_draft(driver: Harness) -> None:
    """phone@example.com's draft (0.002 to 0x90F7…) was prefilled after Disconnect and another
    wallet's Connect: the walk's defect."""
    ready(driver)
    fill(driver, amount="0.002", receiver=OTHER)
    assert driver.model.send.amount == "0.002"
    driver.intent("host", "disconnect")
    driver.answer_last(None)  # wallet_revokePermissions
    assert driver.model.accounts.get("eip155").status == "disconnected"
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/feature/send")
    assert driver.model.router.view == "WalletSend"
    assert (driver.model.send.amount, driver.model.send.receiver, driver.model.send.token) == ("", "", None)
    assert driver.node("send/amount").p.get("value", "") == ""
    assert driver.node("send/receiver").p.get("value", "") == ""


def test_another_account_drops_the_send_draft(driver: Harness) -> None:
    ready(driver)
    fill(driver, amount="0.002", receiver=OTHER)
    connector = driver.model.connectors.get(driver.model.accounts.get("eip155").connector_id)
    assert connector is not None
    driver.wallet_event(connector.ref, "accountsChanged", [OTHER.lower()])
    assert driver.model.accounts.get("eip155").address is not None
    assert (driver.model.send.amount, driver.model.send.receiver) == ("", "")


def test_the_same_account_keeps_its_send_draft(driver: Harness) -> None:
    """Closing and reopening the modal (no new owner) keeps the draft."""
    ready(driver)
    fill(driver, amount="0.002", receiver=OTHER)
    driver.intent("host", "close")
    driver.intent("host", "open")
    assert (driver.model.send.amount, driver.model.send.receiver) == ("0.002", OTHER)


def test_a_disconnect_drops_the_swap_draft() -> None:
    h = on_swap()
    typed(h, "1")
    assert h.model.swap.amount == "1"
    h.intent("host", "disconnect")
    h.answer_last(None)
    assert h.model.accounts.get("eip155").status == "disconnected"
    assert h.model.swap.amount == ""
