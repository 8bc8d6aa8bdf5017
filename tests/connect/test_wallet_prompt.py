"""A pending wallet request says where to act (issue 28 item 8), not only a spinner: "Approve in
{wallet}" for a browser wallet (AppKit's network switch: "Approve in wallet"), "Open {wallet} on
your phone to approve" for a WalletConnect wallet, with its deep link as a button on the phone
it was paired on by that link."""

from __future__ import annotations

from urllib.parse import quote

from modalcore import samples
from modalcore.enginetest import Harness
from tests.directory.conftest import harness as dir_harness
from tests.walletconnect.test_engine_views import ADDRESS as WC_ADDRESS
from tests.walletconnect.test_engine_views import NETWORKS, PEER, connect, uri

from ..send.test_send_rules import send
from .conftest import dev_session

DEV_PROMPT = "Approve in Dev Wallet"
WC_PROMPT = "Open Modalcore Test Wallet on your phone to approve"


def test_a_network_switch_waiting_on_the_dev_wallet_says_approve_in_dev_wallet(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/network")
    assert driver.find("networks/where") is None  # nothing asked yet
    driver.intent("networks/eip155:31338")
    assert driver.node("networks/where").p["text"] == DEV_PROMPT
    driver.answer_last(None)
    assert driver.find_text(DEV_PROMPT) == []


def test_a_send_waiting_on_the_dev_wallet_says_approve_in_dev_wallet(driver: Harness) -> None:
    effect = send(driver)
    assert driver.view == "WalletSendPreview"
    assert driver.node("send-preview/where").p["text"] == DEV_PROMPT
    driver.answer_last(code=4001, message="User rejected", eid=effect["eid"])
    assert driver.find("send-preview/where") is None


def test_a_sign_in_waiting_on_the_dev_wallet_says_approve_in_dev_wallet() -> None:
    h = dev_session({"siwx": {"required": False}})
    h.connect_wallet()
    h.settle_call("siwx.sessions", samples.siwx_sessions())
    assert h.view == "SIWXSignMessage" and h.find("siwx/where") is None
    h.press("siwx/sign")
    h.settle_call("siwx.nonce", samples.siwx_nonce())
    assert h.node("siwx/where").p["text"] == DEV_PROMPT


def test_a_walletconnect_sign_in_on_a_computer_says_open_the_wallet_on_your_phone() -> None:
    h = Harness(options={"networks": NETWORKS, "siwx": {"required": False}}, walletconnect=True)
    connect(h)
    h.settle_call("siwx.sessions", samples.siwx_sessions())
    h.press("siwx/sign")
    h.settle_call("siwx.nonce", samples.siwx_nonce())
    assert h.pending_relay("personal_sign")
    assert h.node("siwx/where").p["text"] == WC_PROMPT
    assert h.find("siwx/open-wallet") is None  # the wallet is on another device


def test_a_walletconnect_request_on_the_phone_it_was_paired_on_offers_its_deep_link() -> None:
    h = dir_harness({"networks": ["eip155:1", "eip155:10"]}, walletconnect=True,
                    env={"mobile": True, "platform": "ios"})
    h.host("open", view="AllWallets")
    h.press(h.searched("metamask"))
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    assert h.effects()[-1]["req"]["url"] == f"metamask://wc?uri={quote(link, safe='')}"
    h.relay("wc_approval", {"accounts": [WC_ADDRESS], "chain": "eip155:1", "peer": PEER})
    h.host("open")
    h.intent("account/network")
    h.intent("networks/eip155:10")
    assert h.pending_relay("wallet_switchEthereumChain")
    assert h.node("networks/where").p["text"] == WC_PROMPT
    assert h.node("networks/open-wallet").p["text"] == "Open Modalcore Test Wallet"
    h.press("networks/open-wallet")
    assert h.effects()[-1]["kind"] == "open_url"
    assert h.effects()[-1]["req"] == {"url": "metamask://", "target": "_self"}


def test_after_a_reload_a_walletconnect_prompt_still_names_the_wallet_and_the_phone_keeps_open() -> None:
    """Rule (issue 39 item 6): the WalletConnect wallet's identity (name, the deep link its phone
    opens it by) stays in the session across a reload's re-sync: the prompt does not fall back to
    "Open WalletConnect on your phone" and the phone keeps its Open button."""
    h = dir_harness({"networks": ["eip155:1", "eip155:10"]}, walletconnect=True,
                    env={"mobile": True, "platform": "ios"})
    h.host("open", view="AllWallets")
    h.press(h.searched("metamask"))
    h.relay("wc_pair", {"uri": uri(), "expiry": 240})
    h.relay("wc_approval", {"accounts": [WC_ADDRESS], "chain": "eip155:1", "peer": PEER})
    h.rejoin(last=None)
    h.relay("eth_accounts", [WC_ADDRESS])
    h.relay("eth_chainId", hex(1))
    assert h.model.accounts.get("eip155").status == "connected"
    h.host("open")
    h.intent("account/network")
    h.intent("networks/eip155:10")
    assert h.pending_relay("wallet_switchEthereumChain")
    assert h.node("networks/where").p["text"] == WC_PROMPT
    assert h.node("networks/open-wallet").p["text"] == "Open Modalcore Test Wallet"
