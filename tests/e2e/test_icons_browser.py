"""Issue 28 item 6 in Chromium: the demo's wallets, tokens and networks that have a mark in the
icon set show it, loaded from the engine's icon route (the page is on another origin, so the
renderer resolves the engine's paths against the engine); what the set lacks keeps a monogram."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Demo, connect_dev_wallet, open_modal

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

ROOT = "document.querySelector('modalcore-modal').shadowRoot"

# [src, naturalWidth] of the card's images fetched at once, once each has loaded or failed
LOADED = """async () => {
  const imgs = [...%s.querySelectorAll('.wm-card img')].filter((i) => i.loading !== 'lazy');
  await Promise.all(imgs.map((i) => i.decode().catch(() => null)));
  return imgs.map((i) => [i.getAttribute('src'), i.naturalWidth]);
}""" % ROOT


def _marks(demo: Demo) -> list[tuple[str, int]]:
    return [(src, width) for src, width in demo.eval(LOADED) if "/icons/" in src]


def test_the_directorys_wallets_show_their_marks(demo: Demo) -> None:
    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="All Wallets").click()
    card = demo.wait_view("AllWallets")
    card.locator(".wm-stack[data-grid] .wm-row").nth(12).wait_for()
    marks = _marks(demo)
    names = {src.split("/icons/wallet/")[1].split(".svg")[0] for src, _ in marks if "/icons/wallet/" in src}
    assert {"metamask", "trust", "coinbase", "rainbow", "okx", "phantom"} <= names, names
    assert all(src.startswith(demo.base_url + "/icons/") for src, _ in marks)  # served by the engine
    assert [src for src, width in marks if width == 0] == []  # every one loaded


def test_eth_wears_its_mark_and_the_dev_chains_their_monograms(demo: Demo) -> None:
    account: Any = connect_dev_wallet(demo)
    account.locator(".wm-token").first.wait_for()
    tokens = {src.split("/icons/token/")[1].split(".svg")[0]: width for src, width in _marks(demo)
              if "/icons/token/" in src}
    assert tokens.get("ETH", 0) > 0, tokens
    account.get_by_role("button", name="switch network").click()
    demo.wait_view("Networks").locator(".wm-net").first.wait_for()
    nets = demo.eval(LOADED)
    dev = [src for src, width in nets if src.startswith("data:image/svg+xml") and width > 0]
    assert len(set(dev)) >= 2, nets  # Hardhat and Hardhat Two: two monograms, not one glyph
