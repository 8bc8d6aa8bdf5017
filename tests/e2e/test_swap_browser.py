"""Issue 16: swap ETH for DEMO from the Account view with the Dev Wallet, in Chromium, against
the engine's own quote on the local Uniswap V2 market; the new balance shows on Account and the
swap is one Activity entry with both legs."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo

from .conftest import ACCOUNT_0, ARTIFACTS, Demo, connect_dev_wallet

pytestmark = [pytest.mark.e2e, pytest.mark.chain]
ETH = 10**18


def test_swap_eth_for_demo_from_the_account_view(demo: Demo, chains: ChainsInfo) -> None:
    from playwright.sync_api import expect

    demo_token = chains.token(31337, "DEMO")["address"]
    with chains.rpc(31337) as rpc:
        before = rpc.erc20_balance(demo_token, ACCOUNT_0)
    # what 1 ETH buys in the 50 ETH / 50,000 DEMO pool (getAmountOut, the 0.3 % fee kept)
    expected = ETH * 997 * 50_000 * ETH // (50 * ETH * 1000 + ETH * 997)

    account = connect_dev_wallet(demo)
    account.get_by_role("button", name="Swap", exact=True).click()
    form = demo.wait_view("Swap")
    form.get_by_role("button", name="Select a token to receive").click()
    form.get_by_role("button", name=re.compile(r"^DEMO")).click()
    form.get_by_role("textbox", name="Amount to swap").fill("1")
    shown = f"{Decimal(expected).scaleb(-18).quantize(Decimal('0.000001'), rounding='ROUND_DOWN').normalize():,f}"
    expect(form.get_by_text(shown, exact=True)).to_be_visible()  # the live quote
    expect(form.get_by_text("2.25%")).to_be_visible()  # price impact
    expect(form.get_by_text("Minimum received (1% slippage)")).to_be_visible()
    assert demo.wallet_requests("eth_sendTransaction") == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    demo.page.screenshot(path=str(ARTIFACTS / "swap-form.png"))
    form.get_by_role("button", name="Review swap").click()

    preview = demo.wait_view("SwapPreview")
    expect(preview.get_by_text(f"{shown} DEMO", exact=True)).to_be_visible()
    preview.get_by_role("button", name="Swap", exact=True).click()
    sends = demo.wait_list("eth_sendTransaction", 1)
    assert sends[0]["ok"] and sends[0]["params"][0]["data"].startswith("0x7ff36ab5")  # swapExactETHForTokens
    with chains.rpc(31337) as rpc:
        assert demo.poll(lambda: rpc.erc20_balance(demo_token, ACCOUNT_0) == before + expected)

    account = demo.wait_view("Account")
    total = Decimal(before + expected).scaleb(-18).quantize(Decimal("0.001"), rounding="ROUND_DOWN")
    expect(account.locator(".wm-token", has_text="Demo Token")).to_contain_text(f"{total:,f} DEMO")
    account.get_by_role("tab", name="Activity").click()
    newest = account.locator(".wm-activity").first
    expect(newest).to_contain_text("Swapped")
    expect(newest).to_contain_text("-1.000 ETH")
    expect(newest).to_contain_text(f"+{Decimal(expected).scaleb(-18).quantize(Decimal('0.001')):,f} DEMO")
    assert len(demo.wallet_requests("eth_sendTransaction")) == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    demo.page.screenshot(path=str(ARTIFACTS / "swap-activity.png"))
