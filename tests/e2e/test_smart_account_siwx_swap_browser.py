"""Issue 32 in Chromium, two done-when items on a dev chain with smart accounts and a real bundler
(alto): an email sign-in on a page that requires sign-in signs in the undeployed smart account
(SIWXSignMessage → Sign → Approve in the engine's frame), the stored signature ERC-6492-wrapped,
accepted by the engine's verifier and by viem's `verifyMessage`, and nothing deployed; and a swap
of DEMO for ETH in the modal's Swap view from the smart account: the exact approve and the swap
each one sponsored UserOperation after Approve, the balances moved as the swap says, Activity
showing the swap."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore.siwx.backend.verify import check_signature, is_erc6492, signature_bytes
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer, serve_app

from ..embedded.test_smart_account_chain import _operations
from ..farcaster.test_one_approval_smart_chain import _viem_verifies
from .test_embedded_browser import HOST_PAGE, host_page, sign_in_by_email
from .test_smart_account_browser import FUNDS, _balance, _rpc, _smart_account, reload_with_balances, smart_dir, \
    smart_engine, smtp

__all__ = ["smart_dir", "smart_engine", "smtp"]  # the fixtures this module uses
pytestmark = [pytest.mark.e2e, pytest.mark.chain]

ETH = 10**18
DEMO_FUNDS = 500 * ETH
DEMO_SWAPPED = 100 * ETH


@pytest.fixture(scope="module")
def smart_host(smart_engine: RunningServer) -> Iterator[str]:
    async def page(request: Request) -> HTMLResponse:
        siwx = ", siwx: {required: true}" if request.query_params.get("siwx") else ""
        return HTMLResponse(HOST_PAGE % {"engine": smart_engine.http_url, "siwx": siwx, "theme": ""})

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


def _engine_verifies(aa: AaChains, address: str, message: str, signature: str) -> bool:
    async def run() -> None:
        async with httpx.AsyncClient() as http:
            await check_signature(message, address, signature_bytes(signature),
                                  rpc_url=aa.chains.rpc_urls[31337], http=http)

    # Playwright's sync API holds this thread's event loop: the check runs on its own thread
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()  # raises SiwxVerifyError when refused
    return True


def test_email_sign_in_signs_in_the_undeployed_smart_account_by_erc6492(
        browser: Any, smart_host: str, smtp: LocalSmtpServer, smart_engine: RunningServer,
        aachains: AaChains) -> None:
    with host_page(browser, smart_host + "/?siwx=1") as page:
        sign_in_by_email(page, smtp, "sia@example.com")
        sign = page.locator('.wm-card[data-view="SIWXSignMessage"]')
        sign.wait_for(state="visible")
        sign.get_by_role("button", name="Sign").click()
        page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
        page.frame_locator("iframe.wm-frame").get_by_role("button", name="Approve").click()
        page.wait_for_function("document.getElementById('siwx').textContent.includes('\"signedIn\":true')")
        smart, eoa = _smart_account(page)
        domain = smart_host.split("://", 1)[1]
        stored = httpx.get(f"{smart_engine.http_url}/v1/sessions/{smart}", params={"domain": domain}).json()
    [session] = stored
    message, signature = session["message"], session["signature"]
    assert f"\n{smart}\n" in message and smart != eoa
    assert is_erc6492(bytes.fromhex(signature[2:]))
    assert _engine_verifies(aachains, smart, message, signature)
    assert _viem_verifies(aachains, smart, message, signature)
    assert _rpc(aachains, 31337, "eth_getCode", [smart, "latest"]) in ("0x", "0x0")  # a sign-in deploys nothing


def _give_demo(aa: AaChains, token: str, to: str, amount: int) -> None:
    with aa.chains.rpc(31337) as rpc:
        [funder] = rpc.accounts()[:1]
        rpc.send_call(funder, token, "transfer(address,uint256)", [to, amount])


def _approve_in_frame(page: Any) -> None:
    page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
    page.frame_locator("iframe.wm-frame").get_by_role("button", name="Approve").click()


def test_a_swap_from_the_smart_account_is_sponsored_user_operations(
        browser: Any, smart_host: str, smtp: LocalSmtpServer, aachains: AaChains) -> None:
    """DEMO → ETH needs the router's allowance: the exact approve, then the swap, two approvals
    in the frame (the Swap flow sends them as two requests), each one sponsored UserOperation."""
    from playwright.sync_api import expect

    demo_token = aachains.chains.token(31337, "DEMO")["address"]
    router = aachains.chains.chain(31337)["uniswapV2"]["router"]
    with host_page(browser, smart_host) as page:
        sign_in_by_email(page, smtp, "swa@example.com")
        smart, _ = _smart_account(page)
        _rpc(aachains, 31337, "hardhat_setBalance", [smart, hex(FUNDS)])
        _give_demo(aachains, demo_token, smart, DEMO_FUNDS)
        with aachains.chains.rpc(31337) as rpc:
            (expected,) = rpc.eth_call(router, "getAmountsOut(uint256,address[])",
                                       [DEMO_SWAPPED, [demo_token, aachains.chains.chain(31337)["uniswapV2"]["weth"]]],
                                       ["uint256[]"])
        eth_out = int(expected[-1])
        reload_with_balances(page)
        account = page.locator('.wm-card[data-view="Account"]')
        if not account.is_visible():
            page.click("#open")
        account.get_by_role("button", name="Swap", exact=True).click()
        form = page.locator('.wm-card[data-view="Swap"]')
        form.wait_for(state="visible")
        form.get_by_role("button", name="Select a token to receive").click()
        form.get_by_role("button", name=re.compile(r"^DEMO")).click()
        form.get_by_role("button", name="Flip the tokens").click()
        form.get_by_role("textbox", name="Amount to swap").fill("100")
        form.get_by_role("button", name="Review swap").click()
        preview = page.locator('.wm-card[data-view="SwapPreview"]')
        preview.wait_for(state="visible")
        preview.get_by_role("button", name="Approve DEMO and swap").click()
        _approve_in_frame(page)  # the exact allowance
        _approve_in_frame(page)  # the swap
        expect(page.get_by_text("Swap sent")).to_be_visible()
        with aachains.chains.rpc(31337) as rpc:
            assert rpc.erc20_balance(demo_token, smart) == DEMO_FUNDS - DEMO_SWAPPED
            (allowance,) = rpc.eth_call(demo_token, "allowance(address,address)", [smart, router], ["uint256"])
        assert allowance == 0  # the exact amount, spent by the swap
        assert _balance(aachains, 31337, smart) == FUNDS + eth_out  # the paymaster paid both operations' gas
        assert _rpc(aachains, 31337, "eth_getCode", [smart, "latest"]) != "0x"  # the first operation deployed it
        assert len(_operations(aachains, smart)) == 2  # the approve and the swap, one UserOperation each
        account = page.locator('.wm-card[data-view="Account"]')
        if not account.is_visible():
            page.click("#open")
        account.get_by_role("tab", name="Activity").click()
        newest = account.locator(".wm-activity").first
        expect(newest).to_contain_text("Swapped")
        expect(newest).to_contain_text("-100.000 DEMO")
        expect(newest).to_contain_text(f"+{Decimal(eth_out).scaleb(-18).quantize(Decimal('0.001'), rounding='ROUND_HALF_UP'):,f} ETH")
