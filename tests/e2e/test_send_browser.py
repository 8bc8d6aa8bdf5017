"""Issue 6: send tokens with the Dev Wallet and see the transfer in Activity, in Chromium."""

from __future__ import annotations

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo

from .conftest import ACCOUNT_0, ARTIFACTS, Demo, connect_dev_wallet

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

RECEIVER = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"  # dev account 4


def test_send_tokens_with_the_dev_wallet_and_see_the_transfer_in_activity(
    demo: Demo, chains: ChainsInfo
) -> None:
    from playwright.sync_api import expect

    tusd = chains.token(31337, "TUSD")["address"]
    with chains.rpc(31337) as rpc:
        before = rpc.erc20_balance(tusd, RECEIVER)
        before_sender = rpc.erc20_balance(tusd, ACCOUNT_0)

    account = connect_dev_wallet(demo)
    account.get_by_role("button", name="Send", exact=True).click()
    form = demo.wait_view("WalletSend")
    form.get_by_role("button", name="ETH").first.click()  # Send opens on the native token: pick another
    form.get_by_role("button", name="Test USD").click()
    expect(form.get_by_role("button", name="TUSD")).to_contain_text("Balance: 759,000.000 TUSD")
    form.get_by_role("textbox", name="Amount").fill("12.5")
    expect(form.get_by_text("$12.50")).to_be_visible()  # TUSD's known price: 1 USD
    form.get_by_role("textbox", name="Receiver address").fill(RECEIVER)
    form.get_by_role("button", name="Preview send").click()

    preview = demo.wait_view("WalletSendPreview")
    expect(preview.get_by_text("12.5 TUSD", exact=True)).to_be_visible()
    expect(preview.get_by_role("button", name="Send", exact=True)).to_be_enabled()
    assert demo.wallet_requests("eth_sendTransaction") == []  # nothing reached the wallet yet
    preview.get_by_role("button", name="Send", exact=True).click()

    # one transaction, ERC-20 transfer(receiver, 12.5 * 10^6), mined on the node
    sends = demo.wait_list("eth_sendTransaction", 1)
    assert sends[0]["ok"] and sends[0]["params"][0]["to"].lower() == tusd.lower()
    assert sends[0]["params"][0]["data"].startswith("0xa9059cbb")
    with chains.rpc(31337) as rpc:
        deadline_ok = demo.poll(lambda: rpc.erc20_balance(tusd, RECEIVER) == before + 12_500_000)
        assert deadline_ok, "the transfer never reached the receiver"
        assert rpc.erc20_balance(tusd, ACCOUNT_0) == before_sender - 12_500_000

    # back on the Account view (behaviour.md §4: an ERC-20 send's stack entry shows Account)
    account = demo.wait_view("Account")
    expect(account.locator(".wm-token", has_text="Test USD")).to_contain_text("758,987.500 TUSD")
    account.get_by_role("tab", name="Activity").click()
    newest = account.locator(".wm-activity").first
    expect(newest).to_contain_text("Sent")
    expect(newest).to_contain_text("To 0x15d3…6A65")
    expect(newest).to_contain_text("-12.500 TUSD")
    assert len(demo.wallet_requests("eth_sendTransaction")) == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    demo.page.screenshot(path=str(ARTIFACTS / "activity-dark.png"))
