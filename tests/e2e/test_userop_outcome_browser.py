"""A smart account's approval in Chromium at 1280×800 and 390×844 (issue 43 item 1, UserOperations), on the
Hardhat dev chain with the real bundler (alto): the host's `wallet_sendCalls` whose second call
reverts shows the bundler's revert and its reason, and says the fee and revert check come from
the bundler; a sponsored send shows that the visitor pays nothing. Screenshots for
docs/features/simulated-outcomes.md."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from eth_abi.abi import encode
from eth_utils.crypto import keccak

from modalcore.rules.limits import MAX_SIMULATION_MS
from modalcore.simulation.userop import UNCHECKED
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer, serve_app

from .conftest import ARTIFACTS, TIMEOUT_MS
from .test_approval_decoded_browser import SIZES, _sign_in
from .test_smart_account_browser import (FUNDS, HOST_PAGE, RECEIVER, _rpc, _smart_account, smart_dir,  # noqa: F401
                                         smart_engine, smtp)  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.chain]
# the smart-account host page, laid out for a phone's width too
PAGE = HOST_PAGE.replace("<meta charset=utf-8>", '<meta charset=utf-8><meta name=viewport content="width=device-width, '
                         'initial-scale=1"><style>pre{white-space:pre-wrap;overflow-wrap:anywhere}</style>')


@pytest.fixture(scope="module")
def phone_site(smart_engine: RunningServer) -> Iterator[str]:  # noqa: F811
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE % {"engine": smart_engine.http_url, "chain": "eip155:31337"})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


def _ask(page: Any, method: str, params: list[Any]) -> None:
    page.evaluate("""([method, params]) => { window.asked = undefined; window.hostModal.getProvider()
        .request({method, params}).then((r) => { window.asked = r; }, (e) => { window.asked = e.code; }); }""",
                  [method, params])
    page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")


def _reject(page: Any) -> None:
    page.frame_locator("iframe.wm-frame").get_by_role("button", name="Reject").click()
    page.wait_for_function("window.asked !== undefined")
    assert page.evaluate("window.asked") == 4001


def _checked_outcome(page: Any, method: str, params: list[Any]) -> Any:
    """The approval's outcome once it is no longer pending. The engine under test gives the
    simulation and the bundler's check MAX_SIMULATION_MS (its networks' `simulation_ms`, smart_engine),
    not the default 1.5 s a loaded CI machine's bundler can miss."""
    from playwright.sync_api import expect

    _ask(page, method, params)
    outcome = page.frame_locator("iframe.wm-frame").locator("#outcome")
    expect(outcome).not_to_have_attribute("data-status", "pending", timeout=MAX_SIMULATION_MS + TIMEOUT_MS)
    assert UNCHECKED not in outcome.locator(".note").inner_text(), "the bundler did not answer in time"
    return outcome


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_smart_accounts_approval_shows_the_bundlers_check(
        browser: Any, phone_site: str, smtp: LocalSmtpServer, aachains: AaChains, size: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(**SIZES[size])
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(phone_site)
        page.wait_for_function("window.hostModal !== undefined")
        _sign_in(page, smtp, f"uob-{size}@example.com")
        smart, _ = _smart_account(page)
        _rpc(aachains, 31337, "hardhat_setBalance", [smart, hex(FUNDS)])
        demo = aachains.chains.token(31337, "DEMO")["address"]
        too_much = "0x" + (keccak(text="transfer(address,uint256)")[:4]
                           + encode(["address", "uint256"], [RECEIVER, 10**30])).hex()
        batch = {"version": "2.0.0", "chainId": "0x7a69", "from": smart, "atomicRequired": True,
                 "calls": [{"to": RECEIVER, "value": hex(10**16)}, {"to": demo, "data": too_much}]}
        send = {"from": smart, "to": RECEIVER, "value": hex(10**16)}
        for kind, method, params in (("userop-revert", "wallet_sendCalls", [batch]),
                                     ("userop-sponsored", "eth_sendTransaction", [send])):
            outcome = _checked_outcome(page, method, params)
            expect(outcome.locator(".note")).to_contain_text("; fee and revert check from the bundler")
            if kind == "userop-revert":
                expect(outcome.locator(".warn")).to_contain_text(
                    "This transaction will fail: the bundler's simulation reverted (")
                expect(outcome.locator(".warn")).to_contain_text("exceeds balance")
            else:
                expect(outcome.locator(".fee")).to_have_text("Network fee: Sponsored (you pay 0 ETH)")
            page.wait_for_timeout(600)  # the frame fits its height
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"issue43-outcome-{kind}-{size}.png"))
            _reject(page)
            page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="hidden")
    finally:
        context.close()
