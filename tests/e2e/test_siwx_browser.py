"""Issue 5: Sign-In with Ethereum through the Dev Wallet, verified by the engine, in Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.siwx.backend.http import revoke_text
from modalcore_testing import RunningServer

from .conftest import ACCOUNT_0, Demo, open_modal

pytestmark = [pytest.mark.e2e, pytest.mark.chain, pytest.mark.demo_query("?siwx=required")]

ADDRESS_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def sessions(engine: RunningServer, address: str) -> list[dict[str, object]]:
    answer = httpx.get(f"{engine.http_url}/v1/sessions/{address}", timeout=5)
    answer.raise_for_status()
    found: list[dict[str, object]] = answer.json()
    return found


@pytest.fixture
def signed_out(engine: RunningServer, chains: ChainsInfo) -> Iterator[None]:
    """No sign-in session for dev account 0 before or after the test (the engine's SIWX store
    lives for the whole run): each one is revoked with a signature by the account."""

    def revoke_all() -> None:
        for session in sessions(engine, ADDRESS_0):
            pci = str(session["id"])
            with chains.rpc(31337) as rpc:
                signature = rpc.call("personal_sign", ["0x" + revoke_text(pci).encode().hex(), ADDRESS_0])
            answer = httpx.post(f"{engine.http_url}/v1/sessions/{ADDRESS_0}/revoke",
                                json={"pci": pci, "signature": signature}, timeout=5)
            answer.raise_for_status()
        assert sessions(engine, ADDRESS_0) == []

    revoke_all()
    yield
    revoke_all()


def sign_in(demo: Demo) -> None:
    """Connect the Dev Wallet on a page that requires sign-in, then press Sign."""
    from playwright.sync_api import expect

    demo.wait_host("siwx", lambda s: s.get("enabled") is True and s.get("signedIn") is False)
    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="Dev Wallet").click()
    card = demo.wait_view("SIWXSignMessage")
    expect(card.get_by_text("Canceling will disconnect you.")).to_be_visible()
    # closing is disabled while sign-in is required and no session exists
    demo.page.keyboard.press("Escape")
    expect(card).to_be_visible()
    card.get_by_role("button", name="Sign", exact=True).click()
    demo.wait_host("siwx", lambda s: s.get("signedIn") is True)


def test_sign_in_with_the_dev_wallet_closes_the_modal_and_the_host_sees_signed_in(
    demo: Demo, engine: RunningServer, signed_out: None
) -> None:
    from playwright.sync_api import expect

    sign_in(demo)
    siwx = demo.host("siwx")
    assert siwx["enabled"] is True and siwx["token"]
    demo.wait_host("state", lambda s: s.get("open") is False)
    expect(demo.dialog).to_be_hidden()
    signs = demo.wallet_requests("personal_sign")
    assert len(signs) == 1 and signs[0]["ok"]
    message_hex, signer = signs[0]["params"]
    message = bytes.fromhex(message_hex[2:]).decode()
    # an EIP-4361 message for this page's origin and the connected account, verified and stored
    host = demo.base_url.removeprefix("http://")
    assert message.startswith(f"{host} wants you to sign in with your Ethereum account:\n{ADDRESS_0}\n")
    assert f"URI: {demo.base_url}" in message and "Chain ID: 31337" in message
    assert signer.lower() == ACCOUNT_0
    stored = sessions(engine, ADDRESS_0)
    assert len(stored) == 1
    signature = stored[0]["signature"]
    assert Account.recover_message(encode_defunct(text=message), signature=signature) == ADDRESS_0


def test_reload_stays_signed_in_without_a_new_signature(
    demo: Demo, engine: RunningServer, signed_out: None
) -> None:
    sign_in(demo)
    token = demo.host("siwx")["token"]
    demo.reload()
    demo.wait_host("account", lambda a: a.get("status") == "connected")
    siwx = demo.wait_host("siwx", lambda s: s.get("signedIn") is True)
    assert siwx["token"] == token
    assert demo.wallet_requests("personal_sign") == []  # the log restarted with the page
    assert demo.wallet_requests("eth_requestAccounts") == []
    assert demo.host("state").get("open") is False  # no sign view reopened
    assert len(sessions(engine, ADDRESS_0)) == 1
