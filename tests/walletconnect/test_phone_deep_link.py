"""WalletConnect on a phone (issue 28 item 3): a wallet opens by its deep link with the pairing
URI, as AppKit's ConnectingWcMobile does (ConnectionControllerUtil.onConnectMobile →
CoreHelperUtil.formatNativeUrl: `{mobile_link}wc?uri={encodeURIComponent(uri)}`, or the https
link for a universal one), opened as soon as the URI exists, with "Open" to open it again and
"Copy link"; the QR code is for computers."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from tests.directory.conftest import DirHarness, harness

from .test_engine_views import ADDRESS, PEER, uri

PHONE = {"mobile": True, "platform": "android"}


def _pick(h: DirHarness, wallet_id: str) -> None:
    h.press(h.searched(wallet_id))
    assert h.view == "WalletPage"


def phone(options: dict[str, Any] | None = None, **env: Any) -> DirHarness:
    return harness(options, walletconnect=True, env={**PHONE, **env})


def open_urls(h: DirHarness) -> list[dict[str, Any]]:
    return [f["req"] for f in h.effects() if f["kind"] == "open_url"]


def test_a_phone_picking_a_walletconnect_wallet_opens_its_deep_link_with_the_pairing_uri() -> None:
    h = phone()
    h.host("open")
    assert h.view == "Connect"
    h.press("connect/wallet/walletConnect")  # on a phone: the wallets to pick from, not a QR code
    assert h.view == "AllWallets"
    _pick(h, "metamask")
    assert open_urls(h) == []  # nothing to open before the URI exists
    assert h.node("wallet/wc/mobile").p.get("disabled") is True
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    assert open_urls(h) == [{"url": f"metamask://wc?uri={quote(link, safe='')}", "target": "_self"}]
    assert not h.of_type("qr")
    assert h.find_text("Scan this QR Code with your phone") == []
    assert h.node("wallet/status").p["text"] == "Continue in MetaMask"
    assert h.node("wallet/hint").p["text"] == "Open and continue in the wallet app"
    assert h.node("wallet/wc/mobile").p["text"] == "Open"
    h.press("wallet/wc/mobile")  # "Open" opens it again
    assert open_urls(h)[-1]["url"] == f"metamask://wc?uri={quote(link, safe='')}"
    h.press("wallet/copy")
    assert h.effects()[-1]["kind"] == "clipboard" and h.effects()[-1]["req"] == {"text": link}
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:1", "peer": PEER})
    assert h.model.accounts.get("eip155").status == "connected"


def test_the_uri_is_encoded_as_appkit_encodes_it() -> None:
    # encodeURIComponent: ':', '@', '?', '=', '&' and '/' are all escaped (quote with safe='')
    h = phone()
    h.host("open", view="AllWallets")
    _pick(h, "metamask")
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    url = open_urls(h)[-1]["url"]
    encoded = url.removeprefix("metamask://wc?uri=")
    assert encoded == quote(link, safe="") and not set(":@?=&/") & set(encoded)


def test_a_fresh_uri_after_expiry_does_not_reopen_the_wallet_but_a_retry_does() -> None:
    h = phone()
    h.host("open", view="AllWallets")
    _pick(h, "metamask")
    h.relay("wc_pair", {"uri": uri(1, expiry=60), "expiry": 60})
    assert len(open_urls(h)) == 1
    h.advance(56_000)  # 5 s before expiry: a fresh URI
    h.relay("wc_pair", {"uri": uri(2), "expiry": 240})
    assert len(open_urls(h)) == 1
    h.relay("wc_approval", code=8000, message="expired")  # the first pairing's wait ends with it
    h.relay("wc_approval", code=5000, message="User rejected.")
    assert h.node("wallet/status").p["text"] == "Connection declined"
    h.press("wallet/retry")
    link = uri(3)
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    assert open_urls(h)[-1]["url"] == f"metamask://wc?uri={quote(link, safe='')}"


def test_android_inside_telegram_encodes_the_uri_twice_and_opens_a_new_context() -> None:
    h = phone(telegram=True)
    h.host("open", view="AllWallets")
    _pick(h, "metamask")
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    assert open_urls(h)[-1] == {"url": f"metamask://wc?uri={quote(quote(link, safe=''), safe='')}",
                                "target": "_blank"}


def test_a_computer_still_shows_the_qr_code_and_opens_nothing_by_itself() -> None:
    h = harness(walletconnect=True)
    h.host("open")
    h.press("connect/wallet/walletConnect")
    assert h.view == "ConnectingWalletConnect"
    h.relay("wc_pair", {"uri": uri(), "expiry": 240})
    assert h.of_type("qr") and open_urls(h) == []
