"""Issue 17: kill -9 in the middle of a send, with two `serve` processes on one real Redis.

A visitor on worker A presses Send: A sends the wallet request (`eth_sendTransaction`) and is
killed with SIGKILL while the wallet is still deciding. The visitor's page reconnects to
worker B with its resume token:

- the same page (it still holds its tree and the wallet's answer comes): B restores the
  session, its snapshot is numbered after every frame A sent, B never asks the wallet again,
  and the answer the wallet gives lands on B: exactly one transaction on the chain;
- a reloaded page (the request died with it): B shows the request lost, with Try again, and
  sends nothing to the wallet by itself.

Real parts: Hardhat (the devchain plugin) plays the wallet's chain, the engine's services
fetch balances and the fee from it, Redis is Debian's redis-server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.netports import free_port
from modalcore.server.config import dev_networks
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, find_node
from modalcore.wire.diff import apply

pytestmark = pytest.mark.chain

SENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"  # dev account 1
RECEIVER = "0x976EA74026E726554dB657fA54763abd0C3a0aa9"  # dev account 6
WALLET = {"uuid": "uuid-1", "name": "Dev Wallet", "icon": "data:x", "rdns": "dev.modalcore.devwallet"}
WALLET_NODE = "connect/wallet/dev.modalcore.devwallet"
OPTS = {"networks": ["eip155:31337"], "metadata": {"name": "Takeover dApp"}}
STEP_S = 60.0  # a loaded machine: generous, and never asserted as a duration


class Worker:
    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?project={TEST_PROJECT}"


def _start(folder: Path, config: Path) -> Worker:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "modalcore", "serve", "--config", str(config), "--host",
         "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Worker(process, port)


def _wait(worker: Worker) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{worker.port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert worker.process.poll() is None and time.monotonic() < deadline, "serve did not start"
        time.sleep(0.2)


@pytest.fixture()
def workers(tmp_path: Path, redis_url: str, devchain: ChainsInfo) -> Iterator[tuple[Worker, Worker]]:
    """Two single-worker `serve` processes sharing one Redis (a unique key prefix per test)."""
    config = tmp_path / "engine.json"
    config.write_text(json.dumps({
        "secret": TEST_SECRET, "analytics": {"mode": "off"},
        "store": {"kind": "redis", "url": redis_url, "prefix": f"kill9-{os.getpid()}-{tmp_path.name}:"},
        "projects": {TEST_PROJECT: {"name": "Takeover", "origins": [TEST_ORIGIN]}},
        "networks": dev_networks(devchain.rpc_urls, devchain.deployment),
        "siwx": {"db": "siwx.db", "key_file": "engine.key"},
    }))
    started = [_start(tmp_path, config), _start(tmp_path, config)]
    try:
        for worker in started:
            _wait(worker)
        yield started[0], started[1]
    finally:
        for worker in started:
            if worker.process.poll() is None:
                worker.process.terminate()
                worker.process.wait(20)


def _rpc(info: ChainsInfo, method: str, params: list[Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    payload = httpx.post(info.rpc_urls[31337], json=body, timeout=30).json()
    assert "error" not in payload, payload
    return payload["result"]


class Page:
    """The renderer's part, in Python: the tree from snapshots and patches, and the browser
    wallet answering `eip1193` effects from the dev account (eth_sendTransaction is held until
    the test lets it through)."""

    def __init__(self, client: Client, info: ChainsInfo) -> None:
        self.client = client
        self.info = info
        self.tree: dict[str, Any] | None = None
        self.held: list[dict[str, Any]] = []  # eth_sendTransaction requests, unanswered
        self.requests: list[dict[str, Any]] = []  # every effect frame received
        self.host: dict[str, Any] = {}  # host_event kind -> data

    def take(self, frame: dict[str, Any]) -> None:
        if frame["t"] == "snapshot":
            self.tree = frame["tree"]
        elif frame["t"] == "patch" and self.tree is not None:
            self.tree = apply(self.tree, frame["ops"])
        elif frame["t"] == "effect":
            self.requests.append(frame)
        elif frame["t"] == "host_event":
            self.host[frame["kind"]] = frame["data"]

    async def welcome(self, frames: list[dict[str, Any]]) -> None:
        """Take the frames of a join, answering the wallet requests among them."""
        for frame in frames:
            self.take(frame)
            if frame["t"] == "effect":
                await self.answer(frame)

    async def answer(self, frame: dict[str, Any]) -> None:
        method = frame["req"]["method"]
        if method in ("eth_requestAccounts", "eth_accounts"):
            result: Any = [SENDER.lower()]
        elif method == "eth_chainId":
            result = "0x7a69"
        elif method == "eth_sendTransaction":
            self.held.append(frame)
            return
        else:
            await self.client.send({"t": "effect_result", "eid": frame["eid"], "ok": False,
                                    "error": {"code": 4200, "message": f"unsupported {method}"}})
            return
        await self.client.send({"t": "effect_result", "eid": frame["eid"], "ok": True,
                                "result": result})

    async def until(self, done: Callable[[Page], bool]) -> None:
        deadline = time.monotonic() + STEP_S
        while not done(self):
            try:
                frame = await self.client.recv(max(0.1, deadline - time.monotonic()))
            except TimeoutError as error:
                raise AssertionError(f"not reached; host state {self.host}") from error
            self.take(frame)
            if frame["t"] == "effect":
                await self.answer(frame)

    def node(self, node_id: str) -> dict[str, Any] | None:
        return find_node(self.tree, node_id)

    async def press(self, node_id: str, act: str = "press", **args: Any) -> None:
        await self.until(lambda page: page.node(node_id) is not None)
        await self.client.intent(node_id, act, args)


async def _to_the_wallet_request(page: Page) -> None:
    """Connect the Dev Wallet, fill a native send of 1.25 ETH, preview it, press Send: returns
    once the wallet has the eth_sendTransaction request."""
    await page.welcome(await page.client.join(wallets=[WALLET], opts=OPTS))
    await page.client.intent("host", "open")
    await page.press(WALLET_NODE)
    await page.until(lambda p: p.host.get("account", {}).get("isConnected") is True)
    await page.client.intent("host", "open")
    await page.press("account/feature/send")
    await page.press("send/token")
    await page.press("send/token/native")
    await page.press("send/amount", "change", value="1.25")
    await page.press("send/receiver", "change", value=RECEIVER)
    await page.until(lambda p: (p.node("send/receiver") or {}).get("p", {}).get("value") == RECEIVER)
    await page.press("send/preview")

    def fee_known(p: Page) -> bool:
        fee = p.node("send-preview/fee/value")
        return fee is not None and fee["t"] == "text"

    await page.until(fee_known)
    await page.press("send-preview/send")
    await page.until(lambda p: bool(p.held))


def _kill(worker: Worker) -> None:
    worker.process.send_signal(signal.SIGKILL)
    worker.process.wait(20)


def _nonce(info: ChainsInfo) -> int:
    return int(_rpc(info, "eth_getTransactionCount", [SENDER, "latest"]), 16)


async def test_rule_killed_mid_send_the_same_page_gets_one_send_on_the_other_worker(
    workers: tuple[Worker, Worker], devchain: ChainsInfo,
) -> None:
    a, b = workers
    nonce = _nonce(devchain)
    async with Client.open(a.url) as first:
        page = Page(first, devchain)
        await _to_the_wallet_request(page)
        request = page.held[0]
        _kill(a)  # SIGKILL while the wallet holds the request
        seen, resume, seq, tree = first.last, first.resume, first.seq, page.tree
    async with Client.open(b.url, seq=seq) as again:
        frames = await again.join(resume=resume, last=seen, wallets=[WALLET])
        assert frames[0]["t"] == "joined" and frames[0]["resumed"] is True
        numbered = [f for f in frames if f["s"] > 0]
        assert numbered and min(f["s"] for f in numbered) > seen  # nothing numbered twice
        snapshot = next(f for f in frames if f["t"] == "snapshot")
        taken = Page(again, devchain)
        taken.tree = tree
        await taken.welcome(frames)
        assert taken.tree == snapshot["tree"]
        assert taken.node("send-preview/send") is not None  # still waiting for the wallet
        assert find_node(tree, "send-preview/send") is not None
        # the wallet approves: the transaction goes to the chain, the answer to worker B
        tx_hash = _rpc(devchain, "eth_sendTransaction", request["req"]["params"])
        await again.send({"t": "effect_result", "eid": request["eid"], "ok": True,
                          "result": tx_hash})
        await taken.until(lambda p: p.node("send-preview/send") is None)
        assert taken.node("view/WalletSendPreview") is None  # the send completed
        again_requests = [f for f in again.frames if f["t"] == "effect"
                          and f["req"]["method"] == "eth_sendTransaction"]
        assert again_requests == []  # B never asked the wallet again
    assert _nonce(devchain) == nonce + 1  # exactly one transaction


async def test_rule_killed_mid_send_a_reloaded_page_sees_the_request_lost_with_try_again(
    workers: tuple[Worker, Worker], devchain: ChainsInfo,
) -> None:
    a, b = workers
    nonce = _nonce(devchain)
    async with Client.open(a.url) as first:
        page = Page(first, devchain)
        await _to_the_wallet_request(page)
        _kill(a)
        resume, seq = first.resume, first.seq
    async with Client.open(b.url, seq=seq) as reloaded:
        frames = await reloaded.join(resume=resume, wallets=[WALLET], opts=OPTS)  # no `last`
        assert frames[0]["resumed"] is True
        taken = Page(reloaded, devchain)
        await taken.welcome(frames)
        await taken.until(lambda p: p.node("send-preview/lost/retry") is not None)
        retry = taken.node("send-preview/lost/retry")
        assert retry is not None and retry["p"]["text"] == "Try again"
        alert = taken.node("send-preview/lost/alert")
        assert alert is not None and alert["p"]["title"] == "Wallet request lost"
        for frame in await reloaded.quiet(0.5):
            taken.take(frame)
        assert [f for f in taken.requests if f["req"]["method"] == "eth_sendTransaction"] == []
    assert _nonce(devchain) == nonce  # nothing reached the chain behind the visitor's back
