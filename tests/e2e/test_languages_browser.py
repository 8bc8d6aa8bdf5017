"""Issue 20 part 4 in Chromium: the modal in German, Spanish, Japanese and Arabic at phone width
(390 px, the narrowest card): every view reachable from the host API and after connecting the
Dev Wallet, with no text cut (`scrollWidth > clientWidth` on texts, buttons, tabs, tags),
nothing sticking out of the card, the dialog's `lang` and `dir` set from the tree, and arrows
mirrored right to left. One page per language; screenshots in artifacts/languages/."""

from __future__ import annotations

from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_testing import RunningServer

from .checks import NEVER_CUT, ROOT, clipped, outside, screenshot
from .conftest import REPO_ROOT, TIMEOUT_MS, Demo, open_account, open_modal, watch

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

SHOTS = REPO_ROOT / "artifacts" / "languages"
# every text the card draws, not only those the English sweep checks
TEXTS = (*NEVER_CUT, ".wm-text", ".wm-alert-title", ".wm-alert-msg", ".wm-btn-label")
TITLES = {"de": "Wallet verbinden", "es": "Conectar billetera", "ja": "ウォレットを接続", "ar": "ربط المحفظة"}


def cut(demo: Demo) -> list[str]:
    found: list[str] = demo.eval(
        f"""(selectors) => {{
  const card = {ROOT}.querySelector('.wm-card');
  const out = [];
  for (const el of card.querySelectorAll(selectors.join(','))) {{
    if (el.getClientRects().length === 0 || !el.checkVisibility({{visibilityProperty: true}})) continue;
    if (getComputedStyle(el).textOverflow === 'ellipsis') continue;  // cut on purpose (addresses, long names)
    if (el.scrollWidth > el.clientWidth + 1) out.push(el.textContent.trim() + ` (${{el.scrollWidth}} > ${{el.clientWidth}})`);
  }}
  return out;
}}""", list(TEXTS))
    return found


@pytest.mark.parametrize("language", ["de", "es", "ja", "ar"])
def test_every_view_in_each_language_fits_and_reads_its_way(
        language: str, browser: Any, engine: RunningServer, chains: ChainsInfo) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(TIMEOUT_MS)
    demo = Demo(context, context.new_page(), engine.http_url)
    watch(demo)
    problems: list[str] = []
    seen: list[str] = []

    def check(name: str) -> None:
        demo.page.wait_for_timeout(250)  # the open and view animations
        seen.append(name)
        screenshot(demo, SHOTS, f"{language}-{name}")
        problems.extend(f"{language}/{name}: text cut: {t}" for t in [*cut(demo), *clipped(demo)])
        problems.extend(f"{language}/{name}: outside the card: {t}" for t in outside(demo)[:5])

    def show(view: str) -> None:
        demo.call(f"window.demoModal.open({{view: '{view}'}})")
        demo.wait_view(view)
        check(view)

    try:
        demo.goto(f"?locale={language}")
        open_modal(demo)
        card = demo.wait_view("Connect")
        card.get_by_text(TITLES[language]).first.wait_for()
        root = demo.page.locator(".wm-root").first
        assert root.get_attribute("lang") == language
        assert root.get_attribute("dir") == ("rtl" if language == "ar" else "ltr")
        check("Connect")
        for view in ("AllWallets", "WhatIsAWallet", "ConnectingWalletConnectBasic"):
            show(view)
        demo.call("window.demoModal.open({view: 'Connect'})")
        demo.wait_view("Connect").get_by_role("button", name="Dev Wallet").click()
        account = open_account(demo)
        account.locator(".wm-token").first.wait_for()
        for index, name in enumerate(("Account-Tokens", "Account-NFTs", "Account-Activity")):
            account.get_by_role("tab").nth(index).click()
            check(name)
            # the sliding indicator sits under the selected tab, whichever way the tabs run
            under = demo.eval(f"""() => {{
  const tabs = {ROOT}.querySelector('.wm-tabs');
  const ind = tabs.querySelector('.wm-tab-ind').getBoundingClientRect();
  const tab = tabs.querySelector('[aria-selected=true]').getBoundingClientRect();
  return Math.abs((ind.left + ind.right) / 2 - (tab.left + tab.right) / 2);
}}""")
            assert under < 4, f"{language}/{name}: the tab indicator is {under}px off its tab"
        if language == "ar":  # the arrow keys follow the reading direction
            account.get_by_role("tab").nth(2).focus()
            demo.page.keyboard.press("ArrowLeft")
            demo.page.wait_for_function(f"{ROOT}.querySelectorAll('[role=tab]')[0].getAttribute('aria-selected') === 'true'")
        for view in ("Networks", "WalletReceive", "WalletSend"):
            show(view)
        if language == "ar":  # the back arrow points right, the way Arabic reads
            flip = demo.eval(f"getComputedStyle({ROOT}.querySelector('svg[data-flip]')).transform")
            assert flip.startswith("matrix(-1"), flip
        assert demo.errors == [], f"the page logged problems: {demo.errors}"
    finally:
        context.close()
    assert len(seen) == 10
    assert problems == [], "\n".join(problems)
