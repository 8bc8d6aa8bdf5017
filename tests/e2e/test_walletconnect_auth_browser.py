"""Issue 13: one-click sign-in over WalletConnect in Chromium (behaviour.md §7 "WalletConnect authenticate
is used for SIWX"), with the local relay, the real wallet peer (the official sign-client under
Node, signing with ethers over Hardhat account #0) and Hardhat.

Sign-in required → WalletConnect → the URI from the QR node ('Copy link') → pasted into the demo
wallet page (walletpeer/page.mjs), which shows the sign-in request; one click on Approve → the
page shows the account connected and signed in; the engine stored the sign-in session (its
signature recovers to the account); the wallet saw one prompt and no personal_sign, and the
sign-in view was never drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.netports import free_port

from .conftest import ACCOUNT_0, Relay, open_modal, serve
from .test_walletconnect_browser import DEV_KEY, WAIT, Wallet, copy_pairing_uri, page, relay, wc_config

pytestmark = [pytest.mark.e2e, pytest.mark.chain]
__all__ = ["relay"]  # the fixture, shared with the WalletConnect browser tests


def test_one_click_sign_in_over_walletconnect_needs_one_approval(
        browser: Any, devchains: ChainsInfo, relay: Relay, tmp_path: Path) -> None:
    """Rule: with sign-in required, the QR's URI carries methods=wc_sessionAuthenticate; one
    approval in the wallet (one CACAO per chain) connects the visitor and signs them in, verified
    and stored by the engine; no personal_sign, no proposal answered, no SIWXSignMessage."""
    import httpx
    from eth_account import Account
    from eth_account.messages import encode_defunct
    from playwright.sync_api import expect

    port = free_port()
    wallet = Wallet(relay.url, devchains.rpc_urls, policy="ask", extra=("--http", "0"))
    page_url = str(wallet.named("ready")[0]["page"])
    demo = page(browser, port)
    try:
        with serve(wc_config(devchains, tmp_path, relay), port) as engine:
            demo.goto("?siwx=required")
            demo.wait_host("siwx", lambda s: s.get("enabled") is True and s.get("signedIn") is False)
            uri = copy_pairing_uri(demo)
            assert "methods=wc_sessionAuthenticate" in uri
            tab = demo.context.new_page()
            tab.goto(page_url)
            tab.get_by_label("Pairing link").fill(uri)
            tab.get_by_role("button", name="Pair").click()
            request = tab.get_by_role("region", name="Sign-in request")
            expect(request).to_contain_text("wants you to connect and sign in", timeout=int(WAIT * 1000))
            assert wallet.named("auth_approved") == []  # nothing happens before the person decides
            request.get_by_role("button", name="Approve").click()  # the one approval
            wallet.wait("auth_approved")
            expect(tab.get_by_text("Nothing to approve.")).to_be_visible()
            tab.close()

            def signed_in() -> bool:
                assert demo.view("SIWXSignMessage").count() == 0, "the sign-in view was drawn"
                return demo.host("siwx").get("signedIn") is True
            assert demo.poll(signed_in, WAIT)
            assert demo.host("siwx")["token"]
            account = demo.wait_host("account", lambda a: a.get("isConnected") is True)
            assert account["caipAddress"].lower() == f"eip155:31337:{ACCOUNT_0}"
            open_modal(demo)
            demo.wait_view("Account")

            address = Account.from_key(DEV_KEY).address
            stored = httpx.get(f"{engine.http_url}/v1/sessions/{address}", timeout=5).json()
            assert len(stored) == 1
            assert "wc_sessionAuthenticate" not in stored[0]["message"]
            assert "I further authorize the stated URI" in stored[0]["message"]
            assert Account.recover_message(encode_defunct(text=str(stored[0]["message"])),
                                           signature=stored[0]["signature"]) == address
            assert [e["kind"] for e in wallet.named("asking")] == ["authenticate"]
            assert wallet.named("request") == [] and wallet.named("proposal") == []
            assert wallet.named("error") == [], wallet.named("error")
        assert demo.errors == [], demo.errors
    finally:
        demo.context.close()
        wallet.stop()
