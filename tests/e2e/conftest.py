"""End-to-end fixtures: Debian's Chromium (Playwright) against the real engine and dev chains.

Composition as `make run` does it (modalcore_dev/demo.py): both Hardhat nodes with their contracts,
the `demo` project on the dev networks, a SQLite session store and a `[siwx]` section, all in a
temporary folder. One engine serves the whole session and one Chromium each test module;
every test gets a new browser context (so a fresh localStorage, hence a fresh engine session
and a fresh Dev Wallet) and chains reverted to their pre-test state afterwards. Every test
fails on a console error, an uncaught exception or a `[modalcore]` warning in the page.

The demo page's Dev Wallet reaches the chains through the engine's `/devchain/{chainId}` proxy,
so the nodes may run on any port.
"""

from __future__ import annotations

import contextlib
import fcntl
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from modalcore_testing.chromium import LOOPBACK_ONLY, sync_chromium
from modalcore_dev.devchain.pytest_plugin import ChainsInfo, isolated
from modalcore_dev.devoidc import DevOidcProvider
from modalcore.server.app import create_app
from modalcore_dev.rigs import dev_rigs
from modalcore.server.config import EngineConfig, dev_networks, parse_config
from modalcore_testing import RunningServer, serve_app
from modalcore.netports import free_port as free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts" / "screenshots"
SECRET = "e2e-secret-not-for-production"
HOST = "127.0.0.1"
TIMEOUT_MS = 10_000

# The Hardhat dev accounts (public, well known), as the Dev Wallet reports them: lower-case.
ACCOUNT_0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
ACCOUNT_1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "demo_query(query): open the demo page with this query string")


class Relay:
    """The local WalletConnect relay (`python -m modalcore_dev.walletconnect_relay`) in its own
    process, as `make run` starts it."""

    def __init__(self) -> None:
        port = free_port()
        self.url = f"ws://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "modalcore_dev.walletconnect_relay", "--port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "listening" in line, line

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture(scope="session")
def wc_relay() -> Iterator[Relay]:
    """The relay the session's engine pairs WalletConnect wallets on."""
    relay = Relay()
    try:
        yield relay
    finally:
        relay.stop()


def engine_config(chains: ChainsInfo, folder: Path, relay_url: str = "") -> EngineConfig:
    """The demo composition (modalcore_dev/demo.py) with every file in `folder` (and the local
    WalletConnect relay when `relay_url` is given)."""
    return parse_config({
        **({"walletconnect": {"relay_url": relay_url}} if relay_url else {}),
        "secret": SECRET,
        "projects": {"demo": {"name": "Modalcore demo dApp", "origins": []}},
        "networks": dev_networks(chains.rpc_urls, chains.deployment),
        "store": {"kind": "sqlite", "path": str(folder / "sessions.db")},
        "devchain_proxy": True,  # the Dev Wallet reaches the chains through /devchain
        "demo_page": True,  # the demo page at / on the engine's origin (production serves none)
        "siwx": {"db": str(folder / "siwx.db"), "key_file": str(folder / "engine.key")},
        "names": {"db": str(folder / "names.db")},
    })


@contextlib.contextmanager
def serve(config: EngineConfig, port: int) -> Iterator[RunningServer]:
    """The engine app on 127.0.0.1:`port` (the same port again after a restart)."""
    with serve_app(create_app(config, rigs=dev_rigs(config)), port) as running:
        yield running


@pytest.fixture(scope="session")
def e2e_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e-engine")


@pytest.fixture(scope="session")
def engine(devchains: ChainsInfo, e2e_folder: Path, wc_relay: Relay) -> Iterator[RunningServer]:
    """The engine serving the demo page, for the whole session."""
    port = free_port()
    config = engine_config(devchains, e2e_folder, wc_relay.url).model_copy(update={"public_url": f"http://{HOST}:{port}"})
    with serve(config, port) as running:
        yield running


@pytest.fixture(scope="module")
def engine_port() -> int:
    """The port of a module's own engine, chosen before it starts (its provider needs the callback)."""
    return free_port()


@pytest.fixture(scope="module")
def provider(engine_port: int) -> Iterator[DevOidcProvider]:
    """The dev OpenID provider as the module's engine's Google (callback on `engine_port`)."""
    running = DevOidcProvider(f"http://{HOST}:{engine_port}/embedded/oidc/callback/google").start()
    yield running
    running.stop()


def sign_in_at_provider(popup: Any, provider: DevOidcProvider) -> None:
    """The visitor in a popup on the provider: login as zoe, then the consent page."""
    popup.wait_for_url(provider.issuer + "/**")
    popup.locator('input[name="login"]').fill("zoe")
    popup.locator('input[name="password"]').fill("any")
    popup.locator('button[type="submit"]').click()
    popup.locator('button[type="submit"]').first.click()  # the provider's consent page


def host_connected(page: Any) -> None:
    """Waits (TIMEOUT_MS) until the host page's #account says it is connected."""
    page.wait_for_function("document.getElementById('account').textContent.includes('\"isConnected\":true')",
                           timeout=TIMEOUT_MS)


@pytest.fixture(scope="session")
def renderer_dist() -> Path:
    """renderer/dist as the engine serves it, rebuilt when a source is newer than the bundle."""
    renderer = REPO_ROOT / "renderer"
    assert (renderer / "node_modules").is_dir(), "needs renderer/node_modules (make renderer)"
    built = [renderer / "dist" / name for name in ("modal.js", "loader.js", "demo.js", "index.html")]
    sources = [*renderer.glob("src/**/*"), *renderer.glob("demo/*"), renderer / "build.mjs"]
    rebuild_renderer_if_stale(built, sources)
    return renderer / "dist"


def rebuild_renderer_if_stale(built: list[Path], sources: list[Path]) -> None:
    """`node build.mjs` when a source is newer than a bundle in `built`, one worker at a time
    (`make test` runs test files on every core: a second worker waits, then finds it current)."""
    renderer = REPO_ROOT / "renderer"
    with (renderer / "node_modules" / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        newest = max(path.stat().st_mtime for path in sources if path.is_file())
        if not all(path.exists() for path in built) or min(p.stat().st_mtime for p in built) < newest:
            subprocess.run(["node", "build.mjs"], cwd=renderer, check=True, timeout=120,
                           stdout=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def browser(renderer_dist: Path) -> Iterator[Any]:
    """Chromium for one test module (module scope: one sync Playwright may run at a time in a
    process, and other folders' modules start their own)."""
    with sync_chromium(LOOPBACK_ONLY) as b:
        yield b


def new_page(browser: Any) -> tuple[Any, Any, list[str]]:
    """A fresh context at 1280×800 (TIMEOUT_MS by default) and its page, with the list of what the
    page logs as an error (console errors and uncaught exceptions): (context, page, errors)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    return context, page, errors


def requested_navigations(context: Any, page: Any) -> list[str]:
    """The URLs `page` asks to navigate to from now on, as Chromium's DevTools tell them: a deep
    link such as `metamask://` is listed though the browser has no app to open it with."""
    navigations: list[str] = []
    cdp = context.new_cdp_session(page)
    cdp.send("Page.enable")
    cdp.on("Page.frameRequestedNavigation", lambda event: navigations.append(event["url"]))
    return navigations


@dataclass
class Demo:
    """One browser context on the demo page, with what the page logged."""

    context: Any
    page: Any
    base_url: str
    errors: list[str] = field(default_factory=list)

    def goto(self, query: str = "") -> None:
        self.page.goto(f"{self.base_url}/{query}")
        self.page.wait_for_function("window.demoModal !== undefined && window.devWallet !== undefined")

    def reload(self) -> None:
        self.page.reload()
        self.page.wait_for_function("window.demoModal !== undefined && window.devWallet !== undefined")

    def eval(self, script: str, arg: Any = None) -> Any:
        return self.page.evaluate(script, arg)

    # The modal lives in an open shadow root: Playwright's CSS and role selectors pierce it.
    @property
    def dialog(self) -> Any:
        return self.page.get_by_role("dialog")

    def view(self, name: str) -> Any:
        """The modal card while it shows view `name`."""
        return self.page.locator(f'.wm-card[data-view="{name}"]')

    def wait_view(self, name: str) -> Any:
        card = self.view(name)
        card.wait_for(state="visible")
        return card

    def wallet_requests(self, method: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.eval(
            "(m) => window.devWallet.requests.filter((r) => r.method === m)", method)
        return found

    def call(self, expression: str, timeout_ms: int = TIMEOUT_MS) -> None:
        """Run a host API call (e.g. `window.demoModal.open()`) and wait for its promise, at most
        `timeout_ms`: a promise that never settles fails the test instead of hanging it."""
        outcome = self.page.evaluate(
            f"""() => Promise.race([
                Promise.resolve({expression}).then(() => 'settled', (e) => 'rejected: ' + e),
                new Promise((resolve) => setTimeout(() => resolve('timeout'), {timeout_ms})),
            ])""")
        assert outcome == "settled", f"{expression}: {outcome}"

    def wait_list(self, method: str, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The Dev Wallet's `method` requests, once there are `count` of them."""
        ok = self.poll(lambda: len(self.wallet_requests(method)) >= count, timeout)
        found = self.wallet_requests(method)
        if not ok:
            raise AssertionError(f"{count} {method} requests expected, saw {found}")
        return found

    def poll(self, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
        """True once `condition()` holds (checked every 50 ms, the page keeps running)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                return False
            self.page.wait_for_timeout(50)
        return True

    def host(self, panel: str) -> dict[str, Any]:
        """What the demo page shows in one of its panels (#state, #account, #network, #siwx)."""
        import json

        text = self.page.locator(f"#{panel}").inner_text()
        return {} if text.strip() in ("", "—") else dict(json.loads(text))

    def wait_host(self, panel: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            data = self.host(panel)
            if predicate(data):
                return data
            if time.monotonic() > deadline:
                raise AssertionError(f"#{panel} never matched: {data}")
            self.page.wait_for_timeout(50)


def watch(demo: Demo) -> None:
    """Collect console errors, uncaught exceptions and the modal's own warnings (`debug: true`
    logs refused intents and engine errors as `[modalcore] ...`)."""

    def on_console(msg: Any) -> None:
        if msg.type == "error" or (msg.type == "warning" and msg.text.startswith("[modalcore]")):
            demo.errors.append(f"{msg.type}: {msg.text}")

    demo.page.on("console", on_console)
    demo.page.on("pageerror", lambda error: demo.errors.append(f"pageerror: {error}"))


@pytest.fixture
def chains(devchains: ChainsInfo) -> Iterator[ChainsInfo]:
    """Both chains, reverted after the test (evm_snapshot / evm_revert)."""
    with isolated(devchains) as info:
        yield info


@pytest.fixture
def demo(
    request: pytest.FixtureRequest, browser: Any, engine: RunningServer, chains: ChainsInfo
) -> Iterator[Demo]:
    """A fresh context (fresh localStorage: new engine session, new Dev Wallet) on the demo page,
    opened with the query string of the test's `demo_query` marker if it has one."""
    marker = request.node.get_closest_marker("demo_query")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    demo = Demo(context, page, engine.http_url)
    watch(demo)
    demo.goto(marker.args[0] if marker else "")
    try:
        yield demo
    finally:
        context.close()
    # Every test, not only the one about loading: nothing went wrong in the page.
    assert demo.errors == [], f"the page logged problems: {demo.errors}"


def open_modal(demo: Demo) -> None:
    """The Connect button of the demo page (the connected address once connected)."""
    if demo.host("state").get("open") is not True:
        demo.page.locator(".modalcore-connect-button").click()
    demo.wait_host("state", lambda s: s.get("open") is True)


def connect_dev_wallet(demo: Demo) -> Any:
    """Connect button → Dev Wallet → connected; then the modal open on the Account view."""
    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="Dev Wallet").click()
    return open_account(demo)


def open_account(demo: Demo) -> Any:
    """Once a wallet pressed on Connect is connecting: connected, then the modal open on Account."""
    demo.wait_host("account", lambda a: a.get("isConnected") is True)
    # connecting closes the modal, but the account panel can change before the state panel:
    # open_modal, reading the modal still open, then waited for an open that never came (CI run D)
    demo.wait_host("state", lambda s: not (s.get("open") is True and s.get("view") == "Connect"))
    open_modal(demo)
    return demo.wait_view("Account")
