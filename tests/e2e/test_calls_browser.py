"""Issue 32 item 4 in Chromium: the host dApp calls viem's EIP-5792 actions on the modal's EIP-1193
provider (`getProvider()`) after an email sign-in whose account is the smart account.
`getCapabilities` says atomic batching and a paymaster on the dev chain; `sendCalls` with an
approve of DEMO to the Uniswap V2 router and a swap of it for ETH is ONE approval (the engine's
frame lists both calls decoded) and ONE sponsored UserOperation through alto; `waitForCallsStatus`
reports it confirmed with its receipt; `showCallsStatus` opens CallsStatus in the modal.

viem is the bundler rig's (bundler/node_modules, tests/viem_dir.py), bundled for the page here by
the renderer's esbuild."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eth_abi.abi import encode
from eth_utils.crypto import keccak
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer, serve_app
from tests.viem_dir import viem_dir

from ..embedded.test_calls_chain import DEMO_HOLDER
from .test_embedded_browser import sign_in_by_email
from .test_smart_account_browser import _smart_account, host_account, host_page, smart_dir, smart_engine, smtp  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]
REPO = Path(__file__).resolve().parents[2]
AMOUNT = 10 * 10**18
FUNDS = 10**18
USER_OPERATION_EVENT = "0x" + keccak(text="UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)").hex()
BUILD = """const esbuild = require(process.env.ESBUILD);
esbuild.buildSync({stdin: {contents: "import {createWalletClient, custom} from 'viem'; window.viem = {createWalletClient, custom};",
  resolveDir: process.cwd()}, bundle: true, format: 'iife', platform: 'browser', minify: true, logLevel: 'error',
  outfile: process.env.OUT, nodePaths: [process.env.NODE_MODULES]});"""

HOST_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Host dApp</title>
<link rel="icon" href="data:,"></head><body>
<button id=open>Open</button><pre id=account></pre>
<script src="%(engine)s/static/modal.js"></script>
<script src="/viem.js"></script>
<script>
  const modal = window.ModalCore.createModal({projectId: 'demo', networks: ['eip155:31337'],
    engineUrl: '%(engine)s', debug: true});
  window.hostModal = modal;
  modal.subscribeAccount((a) => { document.getElementById('account').textContent = JSON.stringify(a); });
  document.getElementById('open').onclick = () => modal.open();
  const chain = {id: 31337, name: 'Hardhat', nativeCurrency: {name: 'Ether', symbol: 'ETH', decimals: 18},
                 rpcUrls: {default: {http: ['%(rpc)s']}}};
  window.client = window.viem.createWalletClient({chain, transport: window.viem.custom(modal.getProvider())});
</script></body></html>"""


def _selector(signature: str) -> str:
    return "0x" + keccak(text=signature)[:4].hex()


@pytest.fixture(scope="module")
def viem_bundle(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    found = viem_dir()
    assert found is not None, "viem is not installed (bundler/node_modules) and MODALCORE_VIEM_DIR is unset"
    folder = tmp_path_factory.mktemp("viem-page")
    out = folder / "viem.js"
    env = {**os.environ, "ESBUILD": str(REPO / "renderer" / "node_modules" / "esbuild"), "OUT": str(out),
           "NODE_MODULES": str(found.parent)}
    done = subprocess.run(["node", "-e", BUILD], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


@pytest.fixture(scope="module")
def viem_site(smart_engine: RunningServer, aachains: AaChains, viem_bundle: bytes) -> Iterator[str]:  # noqa: F811
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(HOST_PAGE % {"engine": smart_engine.http_url, "rpc": aachains.chains.rpc_urls[31337]})

    async def script(request: Request) -> Response:
        return Response(viem_bundle, media_type="text/javascript")

    with serve_app(Starlette(routes=[Route("/", page), Route("/viem.js", script)])) as running:
        yield running.http_url


def _rpc(aa: AaChains, method: str, params: list[Any]) -> Any:
    with aa.chains.rpc(31337) as rpc:
        return rpc.call(method, params)


def test_viem_send_calls_from_the_host_is_one_approval_and_one_user_operation(
        browser: Any, viem_site: str, smtp: LocalSmtpServer, aachains: AaChains) -> None:  # noqa: F811
    from playwright.sync_api import expect

    parts = aachains.chains.chain(31337)
    demo = next(t["address"] for t in parts["tokens"] if t["symbol"] == "DEMO")
    router, weth = parts["uniswapV2"]["router"], parts["uniswapV2"]["weth"]
    with host_page(browser, viem_site) as page:
        sign_in_by_email(page, smtp, "viem@example.com")
        smart, _ = _smart_account(page)
        _rpc(aachains, "hardhat_setBalance", [smart, hex(FUNDS)])
        with aachains.chains.rpc(31337) as rpc:
            rpc.send_call(DEMO_HOLDER, demo, "transfer(address,uint256)", [smart, AMOUNT])

        assert host_account(page)["smartAccountDeployed"] is False  # its first operation deploys it
        capabilities = page.evaluate(f"client.getCapabilities({{account: '{smart}'}})")
        assert capabilities == {"31337": {"atomic": {"status": "supported"}, "paymasterService": {"supported": True}}}

        calls = [
            {"to": demo, "data": _selector("approve(address,uint256)")
             + encode(["address", "uint256"], [router, AMOUNT]).hex()},
            {"to": router, "data": _selector("swapExactTokensForETH(uint256,uint256,address[],address,uint256)")
             + encode(["uint256", "uint256", "address[]", "address", "uint256"],
                      [AMOUNT, 1, [demo, weth], smart, 2**40]).hex()},
        ]
        page.evaluate("([account, calls]) => { window.sent = null; window.client.sendCalls({account, calls})"
                      ".then((r) => { window.sent = r; }, (e) => { window.sent = {error: String(e)}; }); }",
                      [smart, calls])
        page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
        frame = page.frame_locator("iframe.wm-frame")
        expect(frame.get_by_text("approve(spender, amount)")).to_be_visible()
        expect(frame.get_by_text("swapExactTokensForETH(amountIn, amountOutMin, path, to, deadline)")).to_be_visible()
        frame.get_by_role("button", name="Approve").click()
        page.wait_for_function("window.sent !== null")
        sent = page.evaluate("window.sent")
        assert "error" not in sent, sent
        calls_id = sent["id"]

        status = page.evaluate("(id) => window.client.waitForCallsStatus({id, pollingInterval: 200, timeout: 60000})"
                               ".then((s) => JSON.parse(JSON.stringify(s, (k, v) => typeof v === 'bigint' ? String(v) : v)))",
                               calls_id)
        assert (status["status"], status["statusCode"], status["atomic"]) == ("success", 200, True)
        [receipt] = status["receipts"]
        assert receipt["status"] == "success"
        tx = _rpc(aachains, "eth_getTransactionReceipt", [receipt["transactionHash"]])
        assert tx["status"] == "0x1"
        # the host hears that the batch deployed the account, without a reload (issue 46 item 6)
        page.wait_for_function(
            "document.getElementById('account').textContent.includes('\"smartAccountDeployed\":true')")
        topic = "0x" + "0" * 24 + smart[2:].lower()
        operations = _rpc(aachains, "eth_getLogs", [{"address": parts["smartAccounts"]["entryPoint"], "fromBlock": "0x0",
                                                     "toBlock": "latest", "topics": [USER_OPERATION_EVENT, None, topic]}])
        assert len(operations) == 1  # the approve and the swap in one UserOperation

        page.evaluate("(id) => window.client.showCallsStatus({id})", calls_id)
        view = page.locator('.wm-card[data-view="CallsStatus"]')
        view.wait_for(state="visible")
        expect(view.get_by_text("Calls confirmed")).to_be_visible()
        assert json.loads(json.dumps(status))["chainId"] == 31337
