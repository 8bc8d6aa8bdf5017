"""The All Wallets list a visitor scrolls is bounded (PROTOCOL.md "Bounds"): past
MAX_LISTED_WALLETS no next page is offered (search finds the rest), however large the
directory is."""

from __future__ import annotations

from modalcore.core.cmds import CallSettled
from modalcore.rules import limits as L
from modalcore.slices.directory_query import PAGE_ENTRIES

from .conftest import harness

DIRECTORY_SIZE = 20_000


def answer_pages(h: object) -> None:
    from .conftest import DirHarness

    assert isinstance(h, DirHarness)
    for call in h.directory_calls():
        h.cmds.remove(call)
        page = int(call.args_data["page"])
        entries = int(call.args_data["entries"])
        data = [{"id": f"w-{page}-{n}", "name": f"Wallet {page}.{n}", "webapp_link": "https://w.example"}
                for n in range(entries)]
        h.deliver(CallSettled(call.to, True, {"data": data, "count": DIRECTORY_SIZE},
                              context=dict(call.context)))


def test_scrolling_all_wallets_stops_at_the_bound() -> None:
    h = harness()
    h.now = 0
    assert h.host("open", view="AllWallets") == "ok"
    answer_pages(h)
    pages = 1
    while h.node("all/list").p.get("on"):
        h.now += 100
        assert h.intent("all/list", "more") == "ok"
        answer_pages(h)
        pages += 1
        assert pages <= L.MAX_LISTED_WALLETS // PAGE_ENTRIES + 1
    state = h.model.directory
    assert len(state.wallets) == L.MAX_LISTED_WALLETS
    assert state.count == DIRECTORY_SIZE
    assert not state.has_more
    h.now += 100
    assert h.intent("all/list", "more") == "invalid"
    assert h.model.directory == state
