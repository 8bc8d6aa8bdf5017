"""Issue 4: connect the Dev Wallet on the real local chains, in Chromium.

Connect → Account (real balances) → networks → unsupported chain → reload → disconnect, and
a rejection in the wallet."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devchain.rpc import encode_call

from .conftest import ACCOUNT_0, ACCOUNT_1, Demo, connect_dev_wallet, open_modal

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


def floored(raw: int, decimals: int) -> str:
    """behaviour.md §5: floored to 3 decimals (grouped in thousands, issue 14)."""
    return f"{Decimal(raw).scaleb(-decimals).quantize(Decimal('0.001'), rounding=ROUND_DOWN):,f}"


def test_connect_dev_wallet_shows_the_real_balance(demo: Demo, chains: ChainsInfo) -> None:
    from playwright.sync_api import expect

    card = connect_dev_wallet(demo)
    with chains.rpc(31337) as rpc:
        wei = rpc.balance(ACCOUNT_0)
    shown = f"{floored(wei, 18)} ETH"
    expect(card.locator('.wm-text[data-v="amount"]')).to_have_text(shown)
    expect(card.get_by_text("alice.eth", exact=True)).to_be_visible()  # its ENS name (issue 19)
    expect(card.get_by_role("button", name="Switch network")).to_have_text("Hardhat")
    expect(card.locator(".wm-token", has_text="Ether")).to_contain_text(shown)
    account = demo.host("account")
    assert account["address"].lower() == ACCOUNT_0 and account["status"] == "connected"
    assert account["caipAddress"].lower() == f"eip155:31337:{ACCOUNT_0}"
    assert len(demo.wallet_requests("eth_requestAccounts")) == 1


def test_token_with_six_decimals_displays_correctly(demo: Demo, chains: ChainsInfo) -> None:
    """TUSD has 6 decimals and a known price (1 USD): amount floored to 3 decimals, fiat with 2."""
    from playwright.sync_api import expect

    tusd = chains.token(31337, "TUSD")
    assert tusd["decimals"] == 6
    with chains.rpc(31337) as rpc:  # an amount that uses every decimal: 1.234567 TUSD away
        rpc.transact({"from": ACCOUNT_0, "to": tusd["address"],
                      "data": encode_call("transfer(address,uint256)", [ACCOUNT_1, 1_234_567])})
        raw = rpc.erc20_balance(tusd["address"], ACCOUNT_0)
    card = connect_dev_wallet(demo)
    row = card.locator(".wm-token", has_text="Test USD")
    amount = floored(raw, 6)
    assert amount.endswith(".765")  # ...998.765433 floored, not rounded up
    expect(row).to_contain_text(f"{amount} TUSD")
    fiat = Decimal(raw).scaleb(-6).quantize(Decimal("0.01"))
    expect(row.locator(".wm-row-value")).to_have_text(f"${fiat:,f}")


def test_switch_network_from_the_networks_view(demo: Demo) -> None:
    from playwright.sync_api import expect

    card = connect_dev_wallet(demo)
    card.get_by_role("button", name="Switch network").click()
    networks = demo.wait_view("Networks")
    expect(networks.get_by_role("button", name="Hardhat", exact=True)).to_have_attribute("aria-current", "true")
    networks.get_by_role("button", name="Hardhat Two", exact=True).click()
    demo.wait_host("network", lambda n: n.get("caipNetworkId") == "eip155:31338")
    switches = demo.wallet_requests("wallet_switchEthereumChain")
    assert [r["params"] for r in switches] == [[{"chainId": "0x7a6a"}]]
    assert all(r["ok"] for r in switches)
    assert demo.eval("window.devWallet.getState().chainId") == 31338
    open_modal(demo)
    account = demo.wait_view("Account")
    expect(account.get_by_role("button", name="Switch network")).to_have_text("Hardhat Two")
    assert demo.host("account")["caipAddress"].lower() == f"eip155:31338:{ACCOUNT_0}"


def test_wallet_on_a_chain_the_host_did_not_request_shows_unsupported_chain(demo: Demo) -> None:
    from playwright.sync_api import expect

    connect_dev_wallet(demo)
    demo.eval("window.devWallet.setChain(1)")  # the user picks Ethereum mainnet in the wallet
    card = demo.wait_view("UnsupportedChain")
    expect(card.get_by_role("heading", name="Switch Network")).to_be_visible()
    expect(card.get_by_text("The network you're connected to isn't supported by this app.")).to_be_visible()
    # back to a supported network from that view
    card.get_by_role("button", name="Hardhat Two", exact=True).click()
    demo.wait_host("network", lambda n: n.get("caipNetworkId") == "eip155:31338")
    assert demo.eval("window.devWallet.getState().chainId") == 31338
    expect(demo.view("UnsupportedChain")).to_be_hidden()


def test_reload_stays_connected_without_a_wallet_prompt(demo: Demo) -> None:
    from playwright.sync_api import expect

    connect_dev_wallet(demo)
    demo.page.keyboard.press("Escape")
    demo.reload()  # the Dev Wallet's request log starts empty again
    account = demo.wait_host("account", lambda a: a.get("status") == "connected")
    assert account["address"].lower() == ACCOUNT_0
    assert demo.wallet_requests("eth_requestAccounts") == []  # no prompt
    assert demo.wallet_requests("eth_accounts"), "re-synced through eth_accounts"
    expect(demo.page.locator(".modalcore-connect-button")).to_contain_text("alice.eth")
    open_modal(demo)
    demo.wait_view("Account")


def test_disconnect_returns_to_the_connect_view(demo: Demo) -> None:
    from playwright.sync_api import expect

    card = connect_dev_wallet(demo)
    card.get_by_role("button", name="Disconnect").click()
    demo.wait_host("account", lambda a: a.get("isConnected") is False and a.get("status") == "disconnected")
    expect(demo.page.locator(".modalcore-connect-button")).to_have_text("Connect Wallet")
    open_modal(demo)
    connect = demo.wait_view("Connect")
    expect(connect.get_by_role("button", name="Dev Wallet")).to_be_visible()


def test_user_rejection_shows_the_declined_message_and_try_again_connects(demo: Demo) -> None:
    from playwright.sync_api import expect

    demo.eval("window.devWallet.setRejectNext(true)")
    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="Dev Wallet").click()
    card = demo.wait_view("ConnectingExternal")
    expect(card.get_by_text("Connection declined")).to_be_visible()
    rejected = demo.wallet_requests("eth_requestAccounts")
    assert len(rejected) == 1 and rejected[0]["error"]["code"] == 4001
    assert demo.host("account").get("isConnected") is False
    card.get_by_role("button", name="Try again").click()
    demo.wait_host("account", lambda a: a.get("isConnected") is True)
    assert [r["ok"] for r in demo.wallet_requests("eth_requestAccounts")] == [False, True]
