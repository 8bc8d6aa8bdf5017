"""The phone's own wallet app (issue 44 item 1, part 4): the linked phone's modal draws a phone's
screen (views/screens.py), so a WalletConnect wallet's page shows the phone's deep link ("Open",
AppKit's ConnectingWcMobile, flows/walletconnect_links.py) while the computer's shows the QR code
of the same pairing. "Open" pressed on the phone opens the wallet app on the phone (its
`open_url`, never the host page's); the wallet pairs with the session's WalletConnect client and
the host page gets the account as from any WalletConnect connection. The host page cannot press
the phone's "Open": it is no node of its tree.

The computer's session has no account at all, so the modal's own Yes links the phone
(slices/handoff.py: it gets only the host page's powers), as a desktop visitor without a wallet
extension does; the phone's wallet app then connects the account the host page gets, and a send
started on the computer is asked of that wallet over WalletConnect, both screens showing it sent.
`test_companion_wallet_peer.py` runs the same story with the real wallet peer."""

from __future__ import annotations

from urllib.parse import quote

from modalcore.enginetest.companion import Phone
from modalcore.slices.handoff import linked_key
from tests.directory.conftest import DirHarness, harness
from tests.send.test_send_rules import fill
from tests.walletconnect.test_engine_views import ADDRESS, PEER, uri

from .test_handoff_engine import BASE, KEY, NONCE, _claim

RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
TX_HASH = "0x" + "ab" * 32


def _linked_computer() -> tuple[DirHarness, Phone]:
    """A computer's session (WalletConnect on, continue on your phone on) with a phone linked."""
    h = harness({"features": {"continueOnPhone": True}, "networks": ["eip155:31337"]}, walletconnect=True)
    h.host("open")
    h.press("footer/continue-on-phone")
    h.settle_call("handoff.token", {"nonce": NONCE, "base": BASE})
    h.deliver(_claim(h))
    h.press("handoff/yes")  # no account: the modal's Yes
    h.expect(view="Connect", text="Your phone is connected")
    assert h.model.handoff.identity == ""
    return h, Phone(h, KEY)


def _on_the_wallet_page(h: DirHarness, phone: Phone) -> str:
    """The phone picks MetaMask from All Wallets; the session's client has a pairing URI."""
    phone.press("connect/all-wallets")
    phone.press(h.searched("metamask"))
    assert h.view == "WalletPage"
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    return link


def test_rule_the_phone_draws_the_wallets_deep_link_while_the_computer_draws_the_qr_code() -> None:
    h, phone = _linked_computer()
    _on_the_wallet_page(h, phone)
    assert h.of_type("qr"), "the computer's wallet page lost its QR code"
    assert h.find("wallet/wc/mobile") is None
    drawn = phone.tree
    assert not [n for n in drawn.walk() if n.t == "qr"], "the phone was shown a QR code to scan"
    opener = drawn.find("wallet/wc/mobile")
    assert opener is not None and opener.p.get("text") == "Open" and not opener.p.get("disabled")
    assert "Continue in MetaMask" in phone.texts()


def test_rule_open_on_the_phone_opens_the_wallet_app_on_the_phone_and_the_host_gets_the_account() -> None:
    h, phone = _linked_computer()
    link = _on_the_wallet_page(h, phone)
    host_before = len(h.frames)
    phone.press("wallet/wc/mobile")
    opened = [f["req"] for f in phone.frames if f["t"] == "effect" and f["kind"] == "open_url"]
    assert opened == [{"url": f"metamask://wc?uri={quote(link, safe='')}", "target": "_self"}]
    assert not [f for f in h.frames[host_before:] if f["t"] == "effect"], "the computer was asked to open it"
    # the wallet app approves the pairing: the session's client connects, the host page is told
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:31337", "peer": PEER})
    account = h.host_state("account")
    assert account["isConnected"] is True and account["address"] == ADDRESS
    assert account["walletInfo"]["type"] == "WALLET_CONNECT"
    assert not [f for f in phone.frames if f["t"] == "host_event"], "a host event reached the phone"


def test_rule_the_host_page_cannot_press_the_phones_open() -> None:
    h, phone = _linked_computer()
    _on_the_wallet_page(h, phone)
    before, phone_frames = h.model, len(phone.frames)
    assert h.intent("wallet/wc/mobile") == "invalid"
    assert h.model is before and len(phone.frames) == phone_frames


def test_rule_a_send_started_on_the_computer_is_asked_of_the_phones_wallet_and_both_screens_show_it() -> None:
    """The whole story with no account: linked by the modal's Yes, the phone's wallet app paired
    and connected (one account event on the host page), a send started on the computer goes to
    that wallet over WalletConnect, and both modals say "Transaction sent"."""
    h, phone = _linked_computer()
    _on_the_wallet_page(h, phone)
    phone.press("wallet/wc/mobile")
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:31337", "peer": PEER})
    accounts = [f for f in h.frames if f["t"] == "host_event" and f["kind"] == "account"]
    assert [a["data"]["isConnected"] for a in accounts][-1:] == [True]
    assert len([a for a in accounts if a["data"]["isConnected"]]) == 1, "more than one connection event"
    assert linked_key(h.model) == KEY, "the wallet connected through the phone unlinked it"
    h.settle(h.calls("balances")[-1], {"native": str(10 * 10**18), "tokens": {}})
    h.host("open")
    h.press("account/feature/send")
    fill(h, "native", "1.5", RECEIVER)
    h.press("send/preview")
    h.press("send-preview/send")
    request = h.pending_relay("eth_sendTransaction")  # asked of the wallet app, over WalletConnect
    assert request.req["params"][0]["to"].lower() == RECEIVER.lower()
    assert not [f for f in phone.frames if f["t"] == "effect" and f["kind"] != "open_url"], "the phone was asked to sign"
    h.relay("eth_sendTransaction", TX_HASH)
    h.advance(200)  # the snackbar's reshow after the one open
    assert h.model.snack.message == "Transaction sent" and "Transaction sent" in h.texts()
    assert "Transaction sent" in phone.texts()
