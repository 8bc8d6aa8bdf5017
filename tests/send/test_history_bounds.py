"""The Activity list a visitor scrolls is bounded (PROTOCOL.md "Bounds"): past
MAX_HISTORY_TRANSACTIONS no next page is offered, whatever the history service says."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.rules import limits as L


from .test_history_rules import activity, answer, iso, tx


def test_scrolling_the_activity_list_stops_at_the_bound(driver: Harness) -> None:
    activity(driver)
    page = 0
    while "on" in driver.node("account/activity").p:
        txs = [tx(f"0x{page:04x}{n:02x}", iso(2025, 3, 1)) for n in range(10)]
        answer(driver, txs, next=f"cur-{page + 1}")  # the service always has more
        page += 1
        if "on" in driver.node("account/activity").p:
            driver.now += 100
            assert driver.intent("account/activity", "more") == "ok"
        assert page <= L.MAX_HISTORY_TRANSACTIONS // 10
    state = driver.model.history
    assert len(state.transactions) == L.MAX_HISTORY_TRANSACTIONS
    assert state.next is None
    # the list end comes into view again: nothing is offered, so the intent is refused
    driver.now += 100
    assert driver.intent("account/activity", "more") == "invalid"
    assert driver.model.history == state
