"""The demo wallet page `make run` starts (modalcore_dev/demo.py → walletpeer/page.mjs): it serves the
page, reports the wallet's address and what waits for an answer, and accepts only the page's own
commands (pair, answer, and delete of a session it lists: its Disconnect) within a body bound. The pairing by hand is tested in Chromium
(tests/e2e/test_walletconnect_browser.py)."""

from __future__ import annotations

import httpx
from eth_account import Account

from modalcore_dev.demo import WALLET_KEY, start_relay, start_wallet_page


def test_the_demo_wallet_page_serves_state_and_refuses_other_commands() -> None:
    relay, relay_url = start_relay()
    wallet = None
    try:
        wallet, url = start_wallet_page(relay_url, {31337: "http://127.0.0.1:9"})
        assert url.startswith("http://127.0.0.1:")
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and "Pairing link" in page.text and "Approve" in page.text
        state = httpx.get(url + "state", timeout=10).json()
        assert state["address"] == Account.from_key(WALLET_KEY).address
        assert state["pending"] == []
        assert state["sessions"] == []
        # only the page's commands: quit, and a delete that names no listed session (the bare
        # stdin form would fall back to the latest session), are refused
        for body in ({"cmd": "delete"}, {"cmd": "delete", "topic": "ab" * 32}, {"cmd": "quit"}, {"nope": 1}):
            assert httpx.post(url + "command", json=body, timeout=10).status_code == 400
        assert httpx.post(url + "command", content=b"{", timeout=10).status_code == 400
        assert httpx.post(url + "command", content=b" " * 20_000, timeout=10).status_code == 413
        assert httpx.post(url + "command", json={"cmd": "answer", "id": 5, "approve": True},
                          timeout=10).status_code == 202
        assert wallet.poll() is None  # still running
    finally:
        if wallet is not None:
            wallet.terminate()
            wallet.wait(10)
        relay.terminate()
        relay.wait(10)
