"""Issue 14, what the engine draws (sans IO): numbers grouped in thousands, 'just now', Buy and
Swap not drawn until they exist, the Send form's icons / unit / fiat / insufficient funds while
typing, the send review's summary, What is a wallet's rows and 'Get a wallet', the account and
network buttons' parts in the host events, and one network story on an unsupported chain."""

from __future__ import annotations

from typing import Any

from modalcore.enginetest import Harness
from modalcore.rules.format import floor3, usd
from modalcore.views.activity_tab import relative_time

from .conftest import DEMO, OTHER, TUSD, dev_session
from .test_send_rules import fill

NATIVE_WEI = 9998_992_000_000_000_000_000
TUSD_RAW = str(959_000 * 10**6)


def ready(d: Harness) -> None:
    d.connect_wallet()
    d.settle(d.calls("balances")[-1], {"native": str(NATIVE_WEI), "tokens": {DEMO.address: str(5000 * 10**18), TUSD.address: TUSD_RAW}})
    d.intent("host", "open")


def host(d: Harness, kind: str) -> dict[str, Any]:
    data: dict[str, Any] = [f for f in d.frames if f["t"] == "host_event" and f["kind"] == kind][-1]["data"]
    return data


def test_balances_and_fiat_values_are_grouped_in_thousands() -> None:
    assert floor3("9998.9929") == "9,998.992"
    assert usd("959000") == "$959,000.00"
    d = dev_session()
    ready(d)
    assert d.node("account/balance").p["text"] == "9,998.992 ETH"
    tusd = d.node(f"account/token/{TUSD.address}")
    assert (tusd.p["amount"], tusd.p["value"]) == ("959,000.000", "$959,000.00")


def test_a_transfer_seconds_old_reads_just_now_not_0_sec() -> None:
    assert relative_time(1_000, 1_000 * 1000) == "just now"
    assert relative_time(1_000, (1_000 + 30) * 1000) == "just now"
    assert relative_time(1_000, (1_000 + 60) * 1000) == "1 min"


def test_buy_and_swap_are_enabled_in_the_spec_feature_order() -> None:
    d = dev_session({"features": {"onramp": True, "swaps": True}})
    ready(d)
    features = d.node("account/features")
    assert [n.p["text"] for n in features.c] == ["Buy", "Swap", "Receive", "Send"]
    assert all(not n.p.get("disabled") for n in features.c)


def test_every_send_token_row_and_the_selected_token_draw_an_icon(driver: Harness) -> None:
    ready(driver)
    driver.intent("account/feature/send")
    driver.intent("send/token")
    rows = driver.node("send/tokens").c
    assert len(rows) == 3 and all(r.p.get("image") for r in rows)
    driver.intent(f"send/token/{TUSD.address}")
    assert driver.node("send/token").p["image"].startswith("data:image/svg+xml;base64,")


def test_the_amount_field_shows_its_symbol_and_fiat_value(driver: Harness) -> None:
    ready(driver)
    driver.intent("account/feature/send")
    driver.intent("send/token")
    driver.intent(f"send/token/{TUSD.address}")
    assert driver.node("send/amount").p["unit"] == "TUSD"
    assert driver.node("send/fiat").p["text"] == "$0.00"  # before typing: the price is known
    driver.intent("send/amount", "change", {"value": "1500"})
    assert driver.node("send/fiat").p["text"] == "$1,500.00"


def test_an_amount_above_the_balance_says_insufficient_funds_while_typing(driver: Harness) -> None:
    ready(driver)
    driver.intent("account/feature/send")
    fill(driver, "native", "999999", receiver=None)
    assert driver.node("send/error").p["text"] == "Insufficient funds"
    assert driver.node("send/amount").p["invalid"] is True
    driver.intent("send/amount", "change", {"value": "1"})
    assert driver.find("send/error") is None and driver.node("send/amount").p.get("invalid") is None


def test_the_send_review_shows_the_amount_with_its_icon_and_fiat_value(driver: Harness) -> None:
    ready(driver)
    driver.intent("account/feature/send")
    driver.intent("send/token")
    driver.intent(f"send/token/{TUSD.address}")
    driver.intent("send/amount", "change", {"value": "1200"})
    driver.intent("send/receiver", "change", {"value": OTHER})
    driver.intent("send/preview")
    assert driver.node("send-preview/amount").p["text"] == "1200 TUSD"
    assert driver.node("send-preview/token").p["src"].startswith("data:image/svg+xml")
    assert driver.node("send-preview/fiat").p["text"] == "$1,200.00"


def test_what_is_a_wallet_draws_rows_and_offers_get_a_wallet(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent("connect/footer/link")
    assert driver.model.router.view == "WhatIsAWallet"
    point = driver.node("what/wallet")
    assert point.p["dir"] == "row" and point.c[0].t == "icon"  # icon beside its left-aligned words
    driver.intent("what/get")
    assert driver.model.router.view == "AllWallets"


def test_the_account_button_parts_come_from_the_engine(driver: Harness) -> None:
    assert host(driver, "account")["balance"] == ""
    ready(driver)
    account = host(driver, "account")
    assert (account["display"], account["balance"], account["avatar"]) == ("0xf39F…2266", "9,998.992 ETH", "")
    network = host(driver, "network")
    assert (network["name"], network["supported"]) == ("Hardhat", True)


def test_on_an_unsupported_chain_state_and_network_tell_one_story(driver: Harness) -> None:
    ready(driver)
    driver.wallet_event("uuid-1", "chainChanged", "0x1")
    assert driver.model.router.view == "UnsupportedChain"
    state, network = host(driver, "state"), host(driver, "network")
    assert state["selectedNetworkId"] == network["caipNetworkId"] == "eip155:1"
    assert network["supported"] is False
    assert host(driver, "account")["balance"] == ""  # no balance is known on that chain


def test_the_send_review_headline_shortens_a_long_fraction_and_says_so(driver: Harness) -> None:
    """Acceptance: Max on ETH typed '9998.991957970800386842' and the review's headline wrapped
    that over three lines; a fraction past 6 decimals is floored to 6 and marked '~' (the wallet
    shows the exact amount it signs, and the transaction sends exactly what was typed)."""
    ready(driver)
    driver.intent("account/feature/send")
    fill(driver, "native", "9998.991957970800386842", OTHER)
    driver.intent("send/preview")
    assert driver.node("send-preview/amount").p["text"] == "~9998.991957 ETH"
    assert driver.model.send.amount == "9998.991957970800386842"
