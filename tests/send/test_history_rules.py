"""Activity rules (behaviour.md §3 history store, §4 "Transactions", §5 spam and chain filters, §8, §9
relative times and 3-decimal quantities), sans IO."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from modalcore.icons import icon_set
from modalcore.enginetest import Harness
from modalcore.slices.model import model_from_data, model_to_data
from modalcore.slices import history
from modalcore.views.activity_tab import group_title, quantity3, relative_time
from modalcore.wire.frames import Env

from .conftest import ADDRESS, OTHER, dev_session

NOW = int(datetime(2025, 3, 15, 12, 0, tzinfo=UTC).timestamp() * 1000)
CHAIN = "eip155:31337"


def iso(year: int, month: int, day: int = 1, hour: int = 12) -> str:
    return datetime(year, month, day, hour, tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def tx(id: str, mined: str, *, chain: str | None = CHAIN, op: str = "send", direction: str = "out",
       qty: str = "1.5", symbol: str = "ETH", spam: list[bool] | None = None) -> dict[str, Any]:
    transfers: list[dict[str, Any]]
    if spam is not None:
        transfers = [{"nft_info": {"name": "Free NFT", "flags": {"is_spam": s}}, "direction": "in",
                      "quantity": {"numeric": "1"}} for s in spam]
    else:
        transfers = [{"fungible_info": {"name": symbol, "symbol": symbol, "icon": {"url": ""}},
                      "direction": direction, "quantity": {"numeric": qty}}]
    meta: dict[str, Any] = {"operationType": op, "hash": id, "minedAt": mined, "sentFrom": ADDRESS,
                            "sentTo": OTHER, "status": "confirmed", "nonce": 1}
    if chain is not None:
        meta["chain"] = chain
    return {"id": id, "metadata": meta, "transfers": transfers}


def activity(driver: Harness) -> None:
    driver.now = NOW
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    driver.intent("host", "open")
    driver.intent("account/tabs", "select", {"value": "2"})


def answer(driver: Harness, data: list[dict[str, Any]], next: str | None = None) -> None:
    driver.settle(driver.calls("history")[-1], {"data": data, "next": next})


def items(driver: Harness) -> list[str]:
    return [n.id.rsplit("/", 1)[-1] for n in driver.session.tree.walk() if n.t == "activity-item"]


def test_selecting_the_activity_tab_starts_the_fetch(driver: Harness) -> None:
    activity(driver)
    call = driver.calls("history")[-1]
    assert call.args_data == {"rpc_url": "http://127.0.0.1:8545", "address": ADDRESS, "chain": CHAIN,
                         "cursor": None, "limit": 10, "native_name": "Ether", "native_symbol": "ETH",
                         "native_decimals": 18, "onramp": "coinbase"}
    assert driver.model.history.loading is True


def test_skeletons_while_loading(driver: Harness) -> None:
    activity(driver)
    box = driver.node("account/activity")
    assert [n.t for n in box.c] == ["skeleton"] * 3


def test_no_transactions_is_empty(driver: Harness) -> None:
    activity(driver)
    answer(driver, [])
    assert driver.model.history.empty is True
    assert driver.node("account/activity/text").p["text"] == "No activity yet"


def test_transactions_cannot_be_fetched_without_an_account_address(driver: Harness) -> None:
    model, cmds = history.fetch(driver.model, 0)
    assert cmds == []
    assert model.history.error == "Transactions can't be fetched without an accountAddress"


def test_history_is_grouped_by_year_then_month_newest_first(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0xc", iso(2025, 3, 2)), tx("0xb", iso(2025, 3, 1)), tx("0xa", iso(2025, 1, 9)),
                    tx("0x9", iso(2024, 12, 31)), tx("0x8", iso(2024, 2, 1))])
    groups = [(n.id, n.p["title"], [c.id.rsplit("/", 1)[-1] for c in n.c])
              for n in driver.session.tree.walk() if n.t == "group"]
    assert groups == [
        ("account/activity/group/2025-03", "March", ["0xc", "0xb"]),
        ("account/activity/group/2025-01", "January", ["0xa"]),
        ("account/activity/group/2024-12", "December 2024", ["0x9"]),
        ("account/activity/group/2024-02", "February 2024", ["0x8"]),
    ]
    grouped = history.by_year_and_month(driver.model.history.transactions)
    assert [(year, [month for month, _ in months]) for year, months in grouped] == [(2025, [2, 0]), (2024, [11, 1])]


def test_grouping_uses_the_visitors_time_zone() -> None:
    driver = dev_session(env=Env(timezone="America/New_York"))
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1, hour=2))])  # still February in New York
    assert [n.p["title"] for n in driver.session.tree.walk() if n.t == "group"] == ["February"]


def test_spam_transactions_are_dropped(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1), spam=[True]), tx("0x2", iso(2025, 3, 1), spam=[True, False]),
                    tx("0x3", iso(2025, 3, 1), spam=[True, True]), tx("0x4", iso(2025, 3, 1))])
    assert items(driver) == ["0x2", "0x4"]


def test_only_the_connected_chain_is_kept(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1), chain="eip155:1"), tx("0x2", iso(2025, 3, 1)),
                    tx("0x3", iso(2025, 3, 1), chain=None)])
    assert items(driver) == ["0x2"]


def test_an_item_shows_title_counterparty_time_amount_and_status(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 15, hour=11), qty="1234.56789", symbol="DEMO"),
                    tx("0x2", iso(2025, 3, 14), op="receive", direction="in", qty="0.0004", symbol="TUSD")])
    sent = driver.node("account/activity/tx/0x1")
    assert {k: v for k, v in sent.p.items() if k != "image"} == {
        "title": "Sent", "subtitle": "To 0x7099…79C8", "time": "1 hr", "amount": "-1,234.568 DEMO",
        "status": "confirmed"}
    received = driver.node("account/activity/tx/0x2")
    assert (received.p["title"], received.p["subtitle"], received.p["time"], received.p["amount"]) == (
        "Received", "From 0xf39F…2266", "1 d", "+0.000 TUSD")


@pytest.mark.parametrize("seconds,label", [
    (0, "just now"), (44, "just now"), (45, "1 min"), (89, "1 min"), (90, "2 min"), (44 * 60, "44 min"),
    (45 * 60, "1 hr"), (89 * 60, "1 hr"), (3 * 3600, "3 hrs"), (21 * 3600, "21 hrs"), (22 * 3600, "1 d"),
    (35 * 3600, "1 d"), (36 * 3600, "2 d"), (25 * 86400, "25 d"), (26 * 86400, "1 mo"),
    (60 * 86400, "2 mo"), (300 * 86400, "10 mo"), (340 * 86400, "1 yr"), (600 * 86400, "2 yr"),
    (3 * 365 * 86400, "3 yr"),
])
def test_relative_time_labels_are_abbreviated(seconds: int, label: str) -> None:
    assert relative_time(1_000_000, (1_000_000 + seconds) * 1000) == label


def test_quantities_have_three_decimals() -> None:
    assert quantity3("1.5") == "1.500"
    assert quantity3("3.1415926") == "3.142"
    assert quantity3("0.0005") == "0.001"
    assert quantity3("1234567.1") == "1,234,567.100"


def test_group_title_names_the_year_only_for_other_years() -> None:
    assert group_title(2025, 0, 2025) == "January"
    assert group_title(2024, 11, 2025) == "December 2024"


def test_the_end_of_the_list_fetches_the_next_page_and_appends(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx(f"0x{i}", iso(2025, 3, 10 - i)) for i in range(3)], next="cur-1")
    assert driver.model.history.next == "cur-1"
    driver.intent("account/activity", "more")
    call = driver.calls("history")[-1]
    assert call.args_data["cursor"] == "cur-1"
    assert "onramp" not in call.args_data  # later pages are the account's own; purchases came with the first
    assert driver.node("account/activity/loading/0").t == "skeleton"
    answer(driver, [tx("0x2", iso(2025, 3, 8)), tx("0x9", iso(2025, 2, 1))], next=None)
    assert items(driver) == ["0x0", "0x1", "0x2", "0x9"]  # appended, the repeated one once
    assert driver.model.history.next is None
    assert "on" not in driver.node("account/activity").p  # no more pages: no `more` action
    calls = len(driver.calls("history"))
    driver.deliver(history.RequestedMoreHistory())
    assert len(driver.calls("history")) == calls


def test_a_failure_shows_the_snack_tracks_and_clears_the_cursor(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1))], next="cur-1")
    driver.intent("account/activity", "more")
    driver.settle(driver.calls("history")[-1], ok=False, error="HTTP status code: 500")
    state = driver.model.history
    assert (state.empty, state.next, state.loading) == (True, None, False)
    assert driver.model.snack.message == "Failed to fetch transactions"
    assert driver.model.snack.variant == "error"
    assert [t.props for t in driver.tracks("ERROR_FETCH_TRANSACTIONS")] == [
        {"address": ADDRESS, "projectId": "demo", "cursor": "cur-1", "isSmartAccount": False}]


def test_a_failed_first_page_is_empty(driver: Harness) -> None:
    activity(driver)
    driver.settle(driver.calls("history")[-1], ok=False, error="boom")
    assert driver.model.history.empty is True
    assert driver.node("account/activity/text").p["text"] == "No activity yet"


def test_an_answer_for_another_account_or_page_is_ignored(driver: Harness) -> None:
    activity(driver)
    call = driver.calls("history")[-1]
    driver.deliver(replace(_settled(call, [tx("0x1", iso(2025, 3, 1))]), context={"cursor": "other"}))
    assert driver.model.history.loading is True
    driver.deliver(replace(_settled(call, [tx("0x1", iso(2025, 3, 1))]), to=replace(call.to, key="eip155:31337:0xdead")))
    assert driver.model.history.transactions == ()


def _settled(call: Any, data: list[dict[str, Any]]) -> Any:
    from modalcore.core.cmds import CallSettled

    return CallSettled(call.to, True, {"data": data, "next": None}, "", dict(call.context))


def test_selecting_the_tab_again_soon_keeps_the_list(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1))])
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "2"})
    assert len(driver.calls("history")) == 1
    driver.now += history.FRESH_MS
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "2"})
    assert len(driver.calls("history")) == 2


def test_another_network_starts_a_new_list(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1))])
    driver.intent("host", "switch_network", {"network": "eip155:31338"})
    driver.answer_last(None)
    assert [n.t for n in driver.node("account/activity").c] == ["skeleton"] * 3
    driver.intent("account/activity", "more")  # the list end in view loads the new network's page
    assert driver.calls("history")[-1].args_data["chain"] == "eip155:31338"


def test_history_state_survives_persistence(driver: Harness) -> None:
    activity(driver)
    answer(driver, [tx("0x1", iso(2025, 3, 1))], next="c")
    model = driver.model
    assert model_from_data(model_to_data(model)) == model


def test_every_activity_row_draws_the_token_it_moved_as_the_tokens_tab_does(driver: Harness) -> None:
    """Acceptance: every row drew the same grey pulse icon, so a visitor could not tell at a glance
    what moved; now a row draws the token (its icon or the icon set's mark, else the Tokens tab's
    monogram for it, same colour), and a token the account does not hold gets its symbol's
    monogram."""
    driver.now = NOW
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    driver.intent("host", "open")
    native_row = driver.node("account/token/native").p["image"]
    driver.intent("account/tabs", "select", {"value": "2"})
    answer(driver, [tx("0xa", iso(2025, 3, 14)), tx("0xb", iso(2025, 3, 13), symbol="XYZ", direction="in")])
    sent, received = driver.node("account/activity/tx/0xa"), driver.node("account/activity/tx/0xb")
    assert sent.p["image"] == native_row == icon_set().path("token", "ETH")  # the icon set's mark
    assert received.p["image"].startswith("data:image/svg+xml") and received.p["image"] != native_row


def test_a_token_the_network_does_not_list_gets_no_brands_mark_for_its_symbol(driver: Harness) -> None:
    """A token that came in calling itself USDC (anyone may take the symbol) is not drawn with
    USDC's mark: only the network's own tokens wear the icon set's marks."""
    driver.now = NOW
    driver.connect_wallet()
    driver.settle(driver.calls("balances")[-1], {"native": str(10**18), "tokens": {}})
    driver.intent("host", "open")
    driver.intent("account/tabs", "select", {"value": "2"})
    answer(driver, [tx("0xc", iso(2025, 3, 14), symbol="USDC", direction="in")])
    image = driver.node("account/activity/tx/0xc").p["image"]
    assert image.startswith("data:image/svg+xml") and image != icon_set().path("token", "USDC")
