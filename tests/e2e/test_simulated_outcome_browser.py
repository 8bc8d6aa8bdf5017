"""The simulated outcome on the embedded wallet's approval, in Chromium at 1280×800 and 390×844
(issue 43 item 1), on an Anvil dev chain (which answers eth_simulateV1): a swap shows what leaves
and what arrives and the fee, an unlimited approval says so and warns, a transfer that reverts
warns; the frame says "Simulating…" until the node answers and keeps Approve off meanwhile.
Screenshots for docs/features/simulated-outcomes.md."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from eth_abi.abi import encode
from eth_utils.crypto import keccak

from modalcore.server.config import dev_networks, parse_config
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore_dev.devchain.anvil import ANVIL_NAME, start_anvil
from modalcore_dev.devchain.deploy import deploy_chain
from modalcore_dev.devchain.nodes import DevNode
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer

from .conftest import ARTIFACTS, SECRET, TIMEOUT_MS, serve
from .test_approval_decoded_browser import SIZES, _sign_in
from .test_embedded_browser import host_site, smtp  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


def _call(signature: str, types: list[str], values: list[object]) -> str:
    return "0x" + (keccak(text=signature)[:4] + encode(types, values)).hex()


@pytest.fixture(scope="module")
def anvil() -> Iterator[tuple[DevNode, dict[str, Any]]]:
    node = start_anvil(31337)
    try:
        yield node, deploy_chain(node.rpc_url)
    finally:
        node.stop()


@pytest.fixture(scope="module")
def embedded_engine(anvil: tuple[DevNode, dict[str, Any]], smtp: LocalSmtpServer,  # noqa: F811
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    node, entry = anvil
    folder = tmp_path_factory.mktemp("simulated-e2e")
    key_file = folder / "master.key"
    key_file.write_text(MasterKey.generate().hex())
    config = parse_config({
        "secret": SECRET, "projects": {"demo": {"name": "Modalcore demo dApp", "origins": []}},
        "networks": dev_networks({31337: node.rpc_url}, {"31337": entry}, names={31337: ANVIL_NAME}),
        "store": {"kind": "sqlite", "path": str(folder / "sessions.db")},
        "siwx": {"db": str(folder / "siwx.db"), "key_file": str(folder / "engine.key")},
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key_file),
                     "smtp": {"host": "127.0.0.1", "port": smtp.port, "tls": "none",
                              "sender": "Wallet <no-reply@modal.test>"},
                     "mail_budget": {"address_per_minute": 100}}})
    with serve(config, free_port()) as running:
        yield running


def _fund(node: DevNode, entry: dict[str, Any], account: str) -> None:
    """The visitor's embedded account gets 1 ETH and 50 DEMO from the deployer."""
    deployer = entry["deployer"]
    demo = next(t["address"] for t in entry["tokens"] if t["symbol"] == "DEMO")
    for tx in ({"from": deployer, "to": account, "value": hex(10**18)},
               {"from": deployer, "to": demo, "data": _call("transfer(address,uint256)", ["address", "uint256"],
                                                            [account, 50 * 10**18])}):
        httpx.post(node.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_sendTransaction", "params": [tx]},
                   timeout=10).raise_for_status()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_approval_shows_the_simulated_outcome(
        browser: Any, host_site: str, smtp: LocalSmtpServer,  # noqa: F811
        anvil: tuple[DevNode, dict[str, Any]], size: str) -> None:
    from playwright.sync_api import expect

    node, entry = anvil
    demo = next(t["address"] for t in entry["tokens"] if t["symbol"] == "DEMO")
    tusd = next(t["address"] for t in entry["tokens"] if t["symbol"] == "TUSD")
    router, weth = entry["uniswapV2"]["router"], entry["uniswapV2"]["weth"]
    context = browser.new_context(**SIZES[size])
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(host_site)
        page.wait_for_function("window.hostModal !== undefined")
        _sign_in(page, smtp, f"sim-{size}@example.com")
        account = json.loads(page.locator("#account").inner_text())["address"]
        _fund(node, entry, account)
        swap = _call("swapExactETHForTokens(uint256,address[],address,uint256)",
                     ["uint256", "address[]", "address", "uint256"], [1, [weth, tusd], account, 2**40])
        unlimited = _call("approve(address,uint256)", ["address", "uint256"], [router, 2**256 - 1])
        too_much = _call("transfer(address,uint256)", ["address", "uint256"], [router, 10**30])
        cases: tuple[tuple[str, str, str, str, list[str], str | None], ...] = (("swap", router, swap, hex(25 * 10**16), ["\u22120.25 ETH", "TUSD"], None),
                 ("unlimited", demo, unlimited, "0x0", ["unlimited DEMO"], "This approves an unlimited allowance of DEMO"),
                 ("revert", demo, too_much, "0x0", [], "This transaction will fail: the simulation reverted"))
        for kind, to, data, value, changes, warning in cases:
            page.evaluate("""([from, to, data, value]) => { window.asked = undefined; window.hostModal.getProvider()
                .request({method: 'eth_sendTransaction', params: [{from, to, data, value}]})
                .then((r) => { window.asked = r; }, (e) => { window.asked = e.code; }); }""",
                          [account, to, data, value])
            page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="visible")
            frame = page.frame_locator("iframe.wm-frame")
            outcome = frame.locator("#outcome")
            expect(outcome).to_have_attribute("data-status", "simulated")
            expect(outcome.locator(".note")).to_have_text("Outcome simulated by the network")
            for text in changes:
                expect(outcome.locator("li", has_text=text)).to_be_visible()
            if kind == "swap":
                expect(outcome.locator(".fee")).to_contain_text("Network fee ≈ ")
                expect(outcome.locator("li.in")).to_contain_text("+")
            if warning:
                expect(outcome.locator(".warn")).to_have_text("\u26a0 " + warning)
            expect(outcome).not_to_contain_text("Outcome unavailable")
            expect(frame.get_by_role("button", name="Approve")).to_be_enabled()
            page.wait_for_timeout(600)  # the frame fits its height; Chromium drops a click on a frame that moved
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"issue43-outcome-{kind}-{size}.png"))
            frame.get_by_role("button", name="Reject").click()
            page.wait_for_function("window.asked !== undefined")
            assert page.evaluate("window.asked") == 4001
            page.locator('.wm-card[data-view="ApproveTransaction"]').wait_for(state="hidden")
    finally:
        context.close()

