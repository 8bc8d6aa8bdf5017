"""A scan may find any number of NFTs for an address (a visitor's wallet names the address):
the session keeps at most MAX_NFTS of them and the count of the rest (PROTOCOL.md "Bounds")."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.rules import limits as L
from modalcore.views.nfts_tab import MAX_TILES


from .test_nfts_rules import answer, item, open_tab, tiles


def test_a_scan_finding_thousands_of_nfts_keeps_a_bounded_few_and_the_count(driver: Harness) -> None:
    open_tab(driver)
    found = 5_000
    answer(driver, [item(i) for i in range(found)])
    state = driver.model.nfts
    assert len(state.items) == L.MAX_NFTS
    assert state.total == found
    assert len(tiles(driver)) == MAX_TILES
    assert driver.node("account/nfts/more").p["text"] == f"+{found - MAX_TILES} more"
    # a refresh keeps what is on screen, count included, while the scan runs
    driver.now += 60_000
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    assert driver.model.nfts.loading
    assert driver.node("account/nfts/more").p["text"] == f"+{found - MAX_TILES} more"
