"""WalletConnect figures: the engine's runtime on the local relay with the real wallet peer
(walletpeer/wallet.mjs, the official sign-client) over Hardhat.

- URI ready: the `wc_pair` effect (a pairing subscribed and the proposal published) until the
  runtime answers with the URI (what the QR view waits for after the click);
- paired → connected: the URI handed to the wallet until `wc_approval` answers;
- relay messages per request: publishes and deliveries the relay counted for one personal_sign;
- bytes of the QR node (msgpack, as the wire carries it);
- click on WalletConnect → QR code drawn, in Chromium on the demo page through the delay proxy
  at +0 and +100 ms round trip (the engine makes the pairing on the local relay in between);
- one-click sign-in: with sign-in required, from the approval of the wc_sessionAuthenticate
  request in the wallet (its `answer` command) until the demo page shows the account connected
  and signed in (the wallet signs one CACAO per chain, the engine checks them, makes the session,
  verifies and stores the sign-in), in Chromium, p50 / p99.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from modalcore_dev.latency.browser import CHROMIUM, BrowserThread, DemoPage, chromium, demo_config
from modalcore_dev.latency.proxy import running_proxy
from modalcore.runtime.walletconnect import WalletConnectRuntime
from modalcore.server.config import WalletConnectConfig
from modalcore.store.memory import MemoryStore
from modalcore.views import logos
from modalcore.views.qrcode import qr_node
from modalcore_dev.walletconnect_relay import relay_process, running_relay
from modalcore.walletconnect.domain.sign_rpc import Metadata
from modalcore.wire.codec import encode
from modalcore_testing import start_server
from modalcore_dev.bench.parts import Parts, require_program
from modalcore_dev.bench.stats import Lines, Skipped, line, percentile, summary

WALLET = Path(__file__).resolve().parents[2] / "walletpeer" / "wallet.mjs"
KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
ROUNDS = 5


async def _wallet(relay_url: str, rpc_urls: dict[int, str]) -> tuple[asyncio.subprocess.Process, asyncio.Queue[dict[str, Any]]]:
    node = shutil.which("node")
    assert node is not None, "Node is needed for the wallet peer"
    args = [str(WALLET), "--relay", relay_url, "--key", KEY]
    for chain_id, url in sorted(rpc_urls.items()):
        args += ["--chain", f"{chain_id}={url}"]
    process = await asyncio.create_subprocess_exec(
        node, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, cwd=WALLET.parent, env={**os.environ, "NODE_NO_WARNINGS": "1"})
    events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def read() -> None:
        assert process.stdout is not None
        while raw := await process.stdout.readline():
            try:
                await events.put(json.loads(raw))
            except ValueError:
                continue

    asyncio.get_running_loop().create_task(read())
    return process, events


async def _expect(events: asyncio.Queue[dict[str, Any]], name: str) -> None:
    while (await asyncio.wait_for(events.get(), 60))["event"] != name:
        pass


async def _measure(rpc_urls: dict[int, str], rounds: int) -> dict[str, Any]:
    uri_ms: list[float] = []
    connect_ms: list[float] = []
    async with running_relay() as relay:
        process, events = await _wallet(relay.url, rpc_urls)
        await _expect(events, "ready")
        rt = WalletConnectRuntime(relay.url, metadata=Metadata(name="bench"), secret=b"bench", store=MemoryStore())
        try:
            uri = ""
            for index in range(rounds):
                sid = f"bench-{index}"
                start = time.perf_counter()
                ok, pairing, _, message = await rt.run(sid, {"method": "wc_pair", "networks": ["eip155:31337"]})
                assert ok, message
                uri_ms.append((time.perf_counter() - start) * 1000)
                uri = pairing["uri"]
                assert process.stdin is not None
                start = time.perf_counter()
                process.stdin.write((json.dumps({"cmd": "pair", "uri": uri}) + "\n").encode())
                await process.stdin.drain()
                ok, _, _, message = await rt.run(sid, {"method": "wc_approval"})
                assert ok, message
                connect_ms.append((time.perf_counter() - start) * 1000)
            published, delivered = relay.published, relay.delivered
            ok, _, _, message = await rt.run(f"bench-{rounds - 1}", {"method": "personal_sign",
                                                                    "params": ["0x68656c6c6f", ADDRESS]})
            assert ok, message
            await asyncio.sleep(0.2)  # the dApp's acknowledgement of nothing: let late frames land
            per_request = (relay.published - published, relay.delivered - delivered)
        finally:
            await rt.close()
            process.terminate()
            await process.wait()
    qr = qr_node("wc/qr", uri, size=232, image=logos.WALLETCONNECT)  # as ConnectingWalletConnect draws it
    return {"uri": summary(uri_ms), "connect": summary(connect_ms), "per_request": per_request,
            "qr_bytes": len(encode(qr.to_wire())), "uri_chars": len(uri)}


CLICK_ROUNDS = 10
RTTS_MS = (0, 100)
# From a synthetic click on the WalletConnect row to the first animation frame with the QR drawn.
COPY_READS = 200  # 10 s of reads 50 ms apart
CLICK_TO_QR = r"""async () => {
  const root = document.querySelector('modalcore-modal').shadowRoot;
  const row = [...root.querySelectorAll('button.wm-wallet')].find((b) => b.textContent.includes('WalletConnect'));
  const start = performance.now();
  row.click();
  return await new Promise((resolve) => {
    const poll = () => {
      if (root.querySelector('.wm-card[data-view="ConnectingWalletConnect"] .wm-qr svg')) resolve(performance.now() - start);
      else if (performance.now() - start > 10000) resolve(-1);
      else requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
  });
}"""


async def _clicks(browser: BrowserThread, base_url: str, rounds: int) -> list[float]:
    demo = await DemoPage.open(browser.browser, base_url)
    out: list[float] = []
    try:
        for _ in range(rounds):
            await demo.eval("window.demoModal.open()")
            await demo.wait_state({"card": "Connect"})
            await demo.quiet(250)
            elapsed = float(await demo.eval(CLICK_TO_QR))
            if elapsed < 0:
                raise RuntimeError("the QR code was never drawn")
            out.append(elapsed)
            await demo.eval("window.demoModal.close()")
            await demo.wait_state({"overlay": "closed"})
            await demo.quiet(250)
    finally:
        await demo.close()
    return out


def _browser_lines(rounds: int) -> Lines:
    if not CHROMIUM.exists():
        return [Skipped("click → QR drawn", "no /usr/bin/chromium (make chromium)")]
    rpc = {31337: "http://127.0.0.1:8545", 31338: "http://127.0.0.1:8546"}  # not started: nothing connects
    out: Lines = [f"  click on WalletConnect → QR drawn (Chromium, demo page, delay proxy; {rounds} rounds):"]
    with tempfile.TemporaryDirectory() as folder, relay_process() as relay_url:
        config = demo_config(rpc, None, Path(folder)).model_copy(
            update={"walletconnect": WalletConnectConfig(relay_url=relay_url)})
        with start_server(config) as engine, running_proxy(engine.port, delay_ms=0) as proxy, \
                chromium() as browser:
            for rtt in RTTS_MS:
                proxy.delay_ms = rtt / 2
                times = browser.run(_clicks(browser, proxy.http_url, rounds), timeout=300)
                out.append(line(f"  +{rtt} ms round trip, p50 / p90",
                                f"{percentile(times, 50):.1f} / {percentile(times, 90):.1f} ms",
                                measured=[percentile(times, 50), percentile(times, 90)]))
    return out


AUTH_ROUNDS = 10
SIGNED_IN = r"""() => {
  const panel = (id) => { try { return JSON.parse(document.querySelector(id).innerText); } catch { return {}; } };
  return panel('#siwx').signedIn === true && panel('#account').isConnected === true;
}"""


class _Wallet:
    """The wallet peer for the browser measure (a thread reads its events; the browser runs in
    its own event loop)."""

    def __init__(self, relay_url: str, rpc_urls: dict[int, str]) -> None:
        node = shutil.which("node")
        assert node is not None, "Node is needed for the wallet peer"
        args = [node, str(WALLET), "--relay", relay_url, "--key", KEY, "--policy", "ask"]
        for chain_id, url in sorted(rpc_urls.items()):
            args += ["--chain", f"{chain_id}={url}"]
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, cwd=WALLET.parent)
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.wait("ready")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            with self.lock:
                self.events.append(event)

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def wait(self, name: str, count: int = 1, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                found = [e for e in self.events if e.get("event") == name]
            if len(found) >= count:
                return found[count - 1]
            if time.monotonic() > deadline:
                raise RuntimeError(f"the wallet never sent {name}")
            time.sleep(0.005)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


async def _copied(demo: DemoPage) -> str:
    """The `wc:` URI 'Copy link' put on the clipboard, read until it is there (each read is one
    awaited readText: a predicate handed to wait_for_function returned its promise, which counted
    as done before the copy was)."""
    for _ in range(COPY_READS):
        copied = str(await demo.eval("navigator.clipboard.readText()"))
        if copied.startswith("wc:"):
            return copied
        await asyncio.sleep(0.05)
    raise RuntimeError("'Copy link' put no wc: URI on the clipboard")


async def _one_click(browser: BrowserThread, base_url: str, wallet: _Wallet, rounds: int) -> list[float]:
    out: list[float] = []
    for index in range(rounds):
        demo = await DemoPage.open(browser.browser, base_url, "?siwx=required")
        try:
            await demo.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
            await demo.eval("window.demoModal.open()")
            await demo.wait_state({"card": "Connect"})
            if float(await demo.eval(CLICK_TO_QR)) < 0:
                raise RuntimeError("the QR code was never drawn")
            # the clipboard is the browser's, shared by its contexts: a URI copied before must
            # not pass for this round's
            await demo.eval("navigator.clipboard.writeText('')")
            await demo.page.get_by_role("button", name="Copy link").click()
            uri = await _copied(demo)
            if "methods=wc_sessionAuthenticate" not in uri:
                raise RuntimeError(f"the pairing URI asks no one-click sign-in: {uri}")
            wallet.send(cmd="pair", uri=uri)
            asked = await asyncio.to_thread(wallet.wait, "asking", index + 1)
            assert asked["kind"] == "authenticate", asked
            start = time.perf_counter()
            wallet.send(cmd="answer", id=asked["id"], approve=True)
            await demo.page.wait_for_function(SIGNED_IN, polling="raf", timeout=30_000)
            out.append((time.perf_counter() - start) * 1000)
        finally:
            await demo.close()
    return out


def _one_click_lines(rpc_urls: dict[int, str], deployment: dict[str, Any], rounds: int) -> Lines:
    if not CHROMIUM.exists():
        return [Skipped("one-click sign-in", "no /usr/bin/chromium (make chromium)")]
    with tempfile.TemporaryDirectory() as folder, relay_process() as relay_url:
        config = demo_config(rpc_urls, deployment, Path(folder)).model_copy(
            update={"walletconnect": WalletConnectConfig(relay_url=relay_url)})
        wallet = _Wallet(relay_url, rpc_urls)
        try:
            with start_server(config) as engine, chromium() as browser:
                times = browser.run(_one_click(browser, f"http://127.0.0.1:{engine.port}", wallet, rounds),
                                    timeout=600)
        finally:
            wallet.stop()
    return [line(f"one-click sign-in: approve → signed in, p50 / p99 ({rounds} rounds)",
                 f"{percentile(times, 50):.1f} / {percentile(times, 99):.1f} ms",
                 measured=[percentile(times, 50), percentile(times, 99)])]


def run(parts: Parts) -> Lines:
    require_program("node", "Node 20 for the wallet peer; `make deps`")
    with parts.dev_chains() as chains:  # the demo's contracts: the account page's reads succeed
        figures = asyncio.run(_measure(chains.rpc_urls, parts.size(ROUNDS)))
        one_click = _one_click_lines(chains.rpc_urls, chains.deployment, parts.size(AUTH_ROUNDS))
    published, delivered = figures["per_request"]
    return [*_lines(figures, published, delivered), *one_click, *_browser_lines(parts.size(CLICK_ROUNDS))]


def _lines(figures: dict[str, Any], published: int, delivered: int) -> Lines:
    return [
        "WalletConnect (the engine's WalletConnect runtime alone on the local relay, the sign-client wallet peer, "
        "Hardhat; the browser figures below go through the whole engine):",
        line("wc_pair → URI ready p50", f"{figures['uri']['p50']:.1f} ms", measured=[figures["uri"]["p50"]]),
        line("URI to the wallet → connected p50", f"{figures['connect']['p50']:.1f} ms",
             measured=[figures["connect"]["p50"]]),
        line("relay messages per personal_sign", f"{published} published, {delivered} delivered",
             measured=[published, delivered]),
        line("QR node (msgpack)", f"{figures['qr_bytes']} bytes for a {figures['uri_chars']}-char URI",
             measured=[figures["qr_bytes"], figures["uri_chars"]]),
    ]


if __name__ == "__main__":
    for text in run(Parts()):
        print(text)
