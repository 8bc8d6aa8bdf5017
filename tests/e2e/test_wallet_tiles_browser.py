"""Issue 28 item 9: a wallet's name in the All Wallets grid wraps between words only
("Cosmostation" was drawn "Cosmostatio / n"). In Chromium, at 1280×800 and 390×844: no word of
any tile name has pieces on two lines (each word's text boxes share one line), a word too wide
for its tile ends in an ellipsis on its line, and the sweep's `clipped()` finds nothing cut."""

from __future__ import annotations

from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_testing import RunningServer

from .checks import clipped
from .conftest import TIMEOUT_MS, Demo, open_modal, watch

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

# Every tile name's words whose text boxes lie on more than one line.
SPLIT_WORDS = """() => {
  const root = document.querySelector('modalcore-modal').shadowRoot;
  const split = [];
  for (const el of root.querySelectorAll('.wm-stack[data-grid] .wm-row-title')) {
    const text = el.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    let at = 0;
    for (const word of text.data.split(' ')) {
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + word.length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(`${text.data}: ${word}`);
      at += word.length + 1;
    }
  }
  return split;
}"""
SEARCHES = ("cosmo", "blockchain", "imperson", "token", "")


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_rule_a_tile_name_wraps_between_words_only(
        browser: Any, engine: RunningServer, chains: ChainsInfo, size: tuple[int, int]) -> None:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT_MS)
    demo = Demo(context, context.new_page(), engine.http_url)
    watch(demo)
    try:
        demo.goto()
        open_modal(demo)
        demo.wait_view("Connect").locator('[data-nav]', has_text="All Wallets").first.click()
        card = demo.wait_view("AllWallets")
        for query in SEARCHES:
            card.get_by_role("searchbox").fill(query)
            demo.page.wait_for_function(  # the answer drawn: no skeletons left
                "() => !document.querySelector('modalcore-modal').shadowRoot"
                ".querySelector('[aria-label=\"Loading wallets\"]')")
            card.locator(".wm-stack[data-grid] .wm-row-title").first.wait_for()
            if query == "cosmo":
                name = card.locator(".wm-stack[data-grid] .wm-row-title", has_text="Cosmostation")
                assert name.evaluate("(el) => el.getClientRects().length && el.scrollHeight <= el.clientHeight + 1")
            assert demo.eval(SPLIT_WORDS) == [], query
            assert clipped(demo) == [], query
    finally:
        context.close()
    assert demo.errors == []
