"""The phone's own wallet app (issue 44 item 1, part 4): the linked phone's modal draws a phone's
screen (views/screens.py), so a WalletConnect wallet's page shows the phone's deep link ("Open",
AppKit's ConnectingWcMobile, flows/walletconnect_links.py) while the computer's shows the QR code
of the same pairing. "Open" pressed on the phone opens the wallet app on the phone (its
`open_url`, never the host page's); the wallet pairs with the session's WalletConnect client and
the host page gets the account as from any WalletConnect connection. The host page cannot press
the phone's "Open": it is no node of its tree.

The session here has the embedded identity the link needs and no account connected: on a real
engine a linked phone's session has the embedded account connected, and WalletConnect pairs
nothing then (docs/contributors/notes-phone44.md, "Left: stretch")."""

from __future__ import annotations

from urllib.parse import quote

from modalcore.enginetest.companion import Phone
from tests.directory.conftest import DirHarness, harness
from tests.walletconnect.test_engine_views import ADDRESS, PEER, uri

from .test_handoff_engine import BASE, KEY, NONCE, _claim, _confirm, _signed_in


def _linked_computer() -> tuple[DirHarness, Phone]:
    """A computer's session (WalletConnect on, continue on your phone on) with a phone linked."""
    h = harness({"features": {"continueOnPhone": True}}, walletconnect=True)
    h.apply(_signed_in)
    h.host("open")
    h.press("footer/continue-on-phone")
    h.settle_call("handoff.token", {"nonce": NONCE, "base": BASE})
    h.deliver(_claim(h))
    _confirm(h)
    h.expect(view="Connect", text="Your phone is connected")
    return h, Phone(h, KEY)


def _on_the_wallet_page(h: DirHarness, phone: Phone) -> str:
    """The phone picks MetaMask from All Wallets; the session's client has a pairing URI."""
    phone.press("connect/all-wallets")
    h.settle_directory()
    h.type("metamask")
    h.advance(300)
    h.settle_directory()
    phone.press("all/w/metamask")
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
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:1", "peer": PEER})
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
