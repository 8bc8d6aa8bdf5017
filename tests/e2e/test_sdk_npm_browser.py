"""The host SDK as a dApp team gets it from npm (`@modalcore/sdk`, issue 29).

`npm pack` of sdk/, installed into a scratch app in a temporary folder outside the repository
together with the app's own packages from the npm registry (pinned below; nothing goes into the
repository's node_modules). The scratch app's TypeScript host file (tests/e2e/sdk_app/app.tsx)
is type-checked against the package's declarations, bundled with esbuild and driven in Chromium:
wagmi + viem + react-query through the modalcore connector on the dev chains with the Dev Wallet.
Another test server-renders the React entry in Node (no window, storage or IndexedDB there).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.rigs import dev_rigs
from modalcore.server.app import create_app
from modalcore.server.config import EngineConfig
from modalcore.server.headers import DEMO_PAGE_CSP
from modalcore_testing import RunningServer, serve_app

from .conftest import ACCOUNT_0, REPO_ROOT, TIMEOUT_MS, engine_config, free_port, new_page

pytestmark = [pytest.mark.e2e, pytest.mark.npm]

APP_SOURCES = Path(__file__).parent / "sdk_app"
# The scratch app's own packages, as a dApp would pin them, with their lock (issue 37: every npm
# install comes from a lock): tests/e2e/sdk_app_locks/wagmi<major>/package{,-lock}.json, made by
# `npm install --package-lock-only` from react 19.1.10, viem 2.57.20, react-query 5.108.4,
# typescript 5.9.3, esbuild 0.28.2 and the wagmi below. The connector is for wagmi 2 and 3
# (wagmi 2 pulls its many connectors' packages: minutes).
APP_LOCKS = Path(__file__).parent / "sdk_app_locks"
WAGMI = {"3": "wagmi@3.7.7", "2": "wagmi@2.19.5"}
NPM = ["npm", "--no-audit", "--no-fund", "--loglevel=error"]
# ACCOUNT_0 as viem reports it (EIP-55 checksum)
ACCOUNT_0_CHECKSUM = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


@dataclass(frozen=True)
class ScratchApp:
    """One page of the scratch app: `<page>` loads the bundle of `<script>.tsx`."""

    page: str
    script: str
    title: str
    dev_wallet: bool = True  # the page loads the Dev Wallet before the app
    production: bool = True  # a minified production build (else React's development build)


APPS = (
    ScratchApp("index.html", "app", "SDK scratch app"),
    ScratchApp("hooks.html", "hooks", "SDK hooks app"),
    ScratchApp("strict.html", "strict", "SDK scratch app (StrictMode, development)", dev_wallet=False,
               production=False),
)
APP_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>%(title)s</title><link rel="icon" href="data:,"></head>
<body>
  <div id="app"></div>
  %(devwallet)s<script type="module" src="/static/%(script)s.js"></script>
</body>
</html>
"""


@dataclass
class Scratch:
    folder: Path
    public: Path


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def scratch(request: pytest.FixtureRequest, renderer_dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    """The packed SDK installed in a scratch app outside the repository (with wagmi 3, or the
    wagmi major given as the parameter), the host file type-checked and bundled, the Dev Wallet
    built beside it."""
    major = getattr(request, "param", "3")
    renderer = REPO_ROOT / "renderer"
    run(["node", "build-sdk.mjs"], renderer, 120)
    folder = tmp_path_factory.mktemp("sdk-scratch-app")
    assert REPO_ROOT not in folder.parents
    packed = run([*NPM, "pack", "--pack-destination", str(folder)], REPO_ROOT / "sdk").stdout.split()[-1]
    for source in APP_SOURCES.iterdir():
        shutil.copy(source, folder / source.name)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(APP_LOCKS / f"wagmi{major}" / name, folder / name)
    run([*NPM, "ci"], folder, 900)
    sdk = folder / "node_modules" / "@modalcore" / "sdk"
    # the SDK as packed today (its tarball's hash changes with every build, so it is not in the
    # lock); --no-save leaves the locked tree as it is
    run([*NPM, "install", "--no-save", f"./{packed}"], folder, 300)
    assert json.loads((folder / "node_modules" / "wagmi" / "package.json").read_text())["version"] == WAGMI[major].split("@")[1]
    # the package carries its licence (issue 40 item 9) and says it
    assert (sdk / "LICENSE").read_text() == (REPO_ROOT / "LICENSE").read_text()
    assert json.loads((sdk / "package.json").read_text())["license"] == "MIT"
    run(["node_modules/.bin/tsc", "-p", "tsconfig.json"], folder, 300)
    public = folder / "public"
    public.mkdir()
    for app in APPS:
        (public / app.page).write_text(APP_PAGE % {
            "title": app.title, "script": app.script,
            "devwallet": '<script src="/static/devwallet.js"></script>\n  ' if app.dev_wallet else ""})
        mode = ["--minify", "--define:process.env.NODE_ENV=\"production\""] if app.production else [
            "--define:process.env.NODE_ENV=\"development\""]
        run(["node_modules/.bin/esbuild", f"{app.script}.tsx", "--bundle", "--format=esm", "--jsx=automatic",
             *mode, f"--outfile={public / (app.script + '.js')}"], folder, 300)
    # The Dev Wallet (a test asset of the demo page) on the scratch app's page, through the
    # engine's /devchain proxy.
    stdin = ("import { installDevWallet } from './demo/devwallet';\n"
             "installDevWallet({ chains: [31337, 31338].map((chainId) => "
             "({ chainId, rpcUrl: `/devchain/${chainId}`, name: `Dev Chain ${chainId}` })) });\n")
    built = subprocess.run(
        ["node_modules/.bin/esbuild", "--bundle", "--format=iife", "--loader=ts", "--sourcefile=devwallet-entry.ts",
         f"--outfile={public / 'devwallet.js'}"], cwd=renderer, input=stdin, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    return Scratch(folder, public)


@pytest.mark.parametrize("scratch", ["3"], indirect=True, ids=["wagmi3"])
def test_the_declarations_refuse_a_wrong_host_file(scratch: Scratch) -> None:
    """The type check can fail: options of the wrong type are an error against the package's
    declarations (the app file passed the same check in the fixture)."""
    ok = "projectId: 'p', networks: ['eip155:1'], engineUrl: 'https://e.example'"
    lines = [
        "import { createModal } from '@modalcore/sdk';",
        "import { useAccount } from '@modalcore/sdk/react';",
        "import { modalcore } from '@modalcore/sdk/wagmi';",
        "createModal({ projectId: 1, networks: 'eip155:1' });",
        "const address: number = useAccount().address;",
        "createModal({ projectId: 'p', networks: ['eip155:1'] });",  # no engineUrl (issue 40 item 4)
        # issue 40 item 5: each mistake a dApp team made that compiled
        f"createModal({{ {ok}, features: {{ swapz: false }} }});",  # a misspelled feature
        f"createModal({{ {ok}, siwx: {{ requird: true }} }});",  # a misspelled siwx option
        f"createModal({{ {ok}, featurs: {{ swaps: false }} }});",  # a misspelled option
        f"createModal({{ {ok}, customWallets: [{{ id: 'w', nmae: 'W' }}] }});",  # nmae
        f"void createModal({{ {ok} }}).open({{ view: 'Acount' }});",  # no such view
        "const connector: number = modalcore({ options: { " + ok + " } });",  # the connector is not `any`
    ]
    (scratch.folder / "wrong.ts").write_text("\n".join(lines) + "\n")
    done = subprocess.run(["node_modules/.bin/tsc", "--noEmit", "--strict", "--module", "esnext",
                           "--moduleResolution", "bundler", "--skipLibCheck", "wrong.ts"],
                          cwd=scratch.folder, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    missing = [line for line in range(4, len(lines) + 1) if f"wrong.ts({line}," not in done.stdout]
    assert missing == [], done.stdout
    # the same options spelled right compile (the errors above are the mistakes, not the setup)
    (scratch.folder / "right.ts").write_text("\n".join([
        *lines[:3],
        f"createModal({{ {ok}, features: {{ swaps: false }}, siwx: {{ required: true }} }});",
        f"createModal({{ {ok}, customWallets: [{{ id: 'w', name: 'W' }}] }});",
        f"void createModal({{ {ok} }}).open({{ view: 'Account' }});",
        "export const connector = modalcore({ options: { " + ok + " } });",
        "export const account: string = useAccount().address;",
    ]) + "\n")
    run(["node_modules/.bin/tsc", "--noEmit", "--strict", "--module", "esnext", "--moduleResolution", "bundler",
         "--skipLibCheck", "right.ts"], scratch.folder, 300)


@pytest.mark.parametrize("scratch", ["3"], indirect=True, ids=["wagmi3"])
def test_the_react_entry_renders_on_a_server(scratch: Scratch) -> None:
    """Every entry imports in Node, and `renderToString` of a tree with <ModalProvider>, the hooks
    and <ConnectButton> gives the defaults; Node has no window, localStorage or indexedDB, so
    touching one would have thrown."""
    done = run(["node", "ssr.mjs"], scratch.folder, 120)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["globals"] == []
    assert result["createModal"] == "function" and result["connector"] == "function"
    state = json.loads(result["html"].split('<pre id="state">')[1].split("</pre>")[0].replace("&quot;", '"'))
    assert state == {"connected": False, "address": "", "network": "", "signIn": False, "isOpen": False, "modal": True}
    # ConnectButton.Custom and useWalletInfo on a server: not mounted, no account, no wallet
    assert '<i id="custom">false:true:true</i>' in result["html"]


SCRATCH_FILES = {"/": "index.html", "/static/app.js": "app.js", "/static/devwallet.js": "devwallet.js",
                 "/strict": "strict.html", "/static/strict.js": "strict.js",
                 "/hooks": "hooks.html", "/static/hooks.js": "hooks.js"}


@contextlib.contextmanager
def serve_with_app(config: EngineConfig, port: int, public: Path) -> Iterator[RunningServer]:
    """The engine with the scratch app's own files in front of its routes on one origin (as a
    dApp's reverse proxy would put them): the engine's /static serves only its own assets and
    no demo page, so the app's page, bundle and Dev Wallet are the app's, not the engine's."""
    engine_config = config.model_copy(update={"demo_page": False})
    engine = create_app(engine_config, rigs=dev_rigs(engine_config))

    def file(path: str, name: str) -> Route:
        async def send(request: Request) -> Response:
            headers = {"Content-Security-Policy": DEMO_PAGE_CSP} if name.endswith(".html") else {}
            return FileResponse(public / name, headers=headers)
        return Route(path, send)

    engine.router.routes[:0] = [file(path, name) for path, name in SCRATCH_FILES.items()]
    with serve_app(engine, port) as running:
        yield running


@pytest.fixture
def app_engine(devchains: ChainsInfo, chains: ChainsInfo, scratch: Scratch, tmp_path: Path) -> Iterator[RunningServer]:
    """An engine with the scratch app's page in front (same origin as the modal's websocket and
    the /devchain proxy)."""
    port = free_port()
    config = engine_config(devchains, tmp_path).model_copy(update={"public_url": f"http://127.0.0.1:{port}"})
    with serve_with_app(config, port, scratch.public) as running:
        yield running


class App:
    def __init__(self, page: Any) -> None:
        self.page = page

    def out(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.page.locator("#out").inner_text())
        return found

    def wait(self, what: str, test: Any, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            out = self.out()
            if test(out):
                return out
            if time.monotonic() > deadline:
                raise AssertionError(f"never {what}: {out}")
            self.page.wait_for_timeout(50)

    def wallet_requests(self, method: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.page.evaluate(
            "(m) => window.devWallet.requests.filter((r) => r.method === m)", method)
        return found


@pytest.mark.parametrize("scratch", ["3", "2"], indirect=True, ids=["wagmi3", "wagmi2"])
def test_wagmi_app_through_the_connector_with_the_dev_wallet(
        browser: Any, app_engine: RunningServer, chains: ChainsInfo) -> None:
    """useAccount, useBalance, useSignMessage, useSendTransaction (one transaction mined),
    useSwitchChain and useDisconnect, connect() rejected with 4001 when the visitor closes the
    modal, and wagmi's reconnect after a reload."""
    context, page, errors = new_page(browser)
    try:
        page.goto(f"{app_engine.http_url}/")
        app = App(page)
        app.wait("rendered", lambda o: o["status"] == "disconnected")

        # connect() opens the modal; closing it rejects with 4001 and connects nothing
        page.click("#connect")
        page.get_by_role("dialog").wait_for(state="visible")
        page.keyboard.press("Escape")
        out = app.wait("rejected", lambda o: o["error"] is not None)
        assert out["error"]["code"] == 4001, out
        assert out["status"] == "disconnected"

        # connect() again: the visitor picks the Dev Wallet in the modal
        page.click("#connect")
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Dev Wallet").click()
        out = app.wait("connected", lambda o: o["status"] == "connected" and o["balance"] is not None)
        assert out["address"] == ACCOUNT_0_CHECKSUM and out["chainId"] == 31337 and out["connector"] == "modalcore"
        assert int(out["balance"]) > 0 and out["error"] is None
        assert out["modal"]["connected"] is True and out["modal"]["address"].lower() == ACCOUNT_0

        page.click("#sign")
        out = app.wait("signed", lambda o: o["signature"] is not None)
        assert len(out["signature"]) == 132 and len(app.wallet_requests("personal_sign")) == 1

        with chains.rpc(31337) as rpc:
            nonce = rpc.nonce(ACCOUNT_0)
            page.click("#send")
            out = app.wait("mined", lambda o: o["receipt"] is not None)
            assert out["receipt"] == "success" and out["error"] is None
            assert rpc.nonce(ACCOUNT_0) == nonce + 1  # exactly one transaction mined
        assert len(app.wallet_requests("eth_sendTransaction")) == 1

        # a reload: wagmi reconnects through isAuthorized() and connect({isReconnecting}), the
        # modal's session resumed, without opening it
        page.reload()
        out = app.wait("reconnected", lambda o: o["status"] == "connected")
        assert out["address"] == ACCOUNT_0_CHECKSUM and out["connector"] == "modalcore" and out["modal"]["isOpen"] is False

        page.click("#switch")
        out = app.wait("switched", lambda o: o["chainId"] == 31338 and o["modal"]["network"] == "eip155:31338")
        assert out["status"] == "connected" and out["error"] is None

        page.click("#disconnect")
        out = app.wait("disconnected", lambda o: o["status"] == "disconnected" and o["modal"]["connected"] is False)
        assert out["error"] is None
        assert errors == [], errors
    finally:
        context.close()


def closed(page: Any, app: App) -> None:
    """The modal closed (after an approval it may still show the Account view)."""
    if app.out()["modal"]["isOpen"]:
        page.get_by_role("dialog").get_by_role("button", name="Close").click()
    app.wait("closed", lambda o: o["modal"]["isOpen"] is False)


@pytest.fixture
def embedded_app_engine(devchains: ChainsInfo, chains: ChainsInfo, scratch: Scratch,
                        tmp_path: Path) -> Iterator[tuple[RunningServer, Any]]:
    """An engine with the embedded wallet (email codes through a local SMTP server) serving the
    scratch app's page."""
    from modalcore_dev.devmail import LocalSmtpServer

    from .test_embedded_browser import embedded_engine_config

    smtp = LocalSmtpServer().start()
    port = free_port()
    config = embedded_engine_config(tmp_path, devchains, {
        "smtp": {"host": "127.0.0.1", "port": smtp.port, "tls": "none", "sender": "Wallet <no-reply@modal.test>"},
    }).model_copy(update={"public_url": f"http://127.0.0.1:{port}", "devchain_proxy": True})
    try:
        with serve_with_app(config, port, scratch.public) as running:
            yield running, smtp
    finally:
        smtp.stop()


@pytest.mark.parametrize("scratch", ["3"], indirect=True, ids=["wagmi3"])
def test_wagmi_app_through_the_connector_with_the_embedded_wallet(
        browser: Any, embedded_app_engine: tuple[RunningServer, Any], chains: ChainsInfo) -> None:
    """The same hooks with the email wallet: connect() resolves once the code is typed in the
    modal; signing and sending are approved in the engine-origin frame; one transaction mined."""
    from .test_embedded_browser import code_field, code_for

    engine, smtp = embedded_app_engine
    context, page, errors = new_page(browser)
    try:
        page.goto(f"{engine.http_url}/")
        app = App(page)
        app.wait("rendered", lambda o: o["status"] == "disconnected")
        email = "wagmi@example.com"
        page.click("#connect")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.get_by_label("Email").fill(email)
        card.get_by_role("button", name="Continue").click()
        page.locator('.wm-card[data-view="EmailVerifyOtp"]').wait_for(state="visible")
        code = code_for(smtp, email)
        code_field(page).click()  # in the engine-origin sign-in frame (issue 27)
        page.keyboard.type(code)
        out = app.wait("connected", lambda o: o["status"] == "connected")
        address = out["address"]
        assert out["connector"] == "modalcore" and out["chainId"] == 31337 and out["modal"]["connector"] == "ID_AUTH"
        with chains.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [address, hex(10**18)])
        frame = page.frame_locator("iframe.wm-frame")

        page.click("#sign")
        frame.get_by_role("button", name="Approve").click()
        out = app.wait("signed", lambda o: o["signature"] is not None)
        assert len(out["signature"]) == 132 and out["error"] is None
        closed(page, app)

        with chains.rpc(31337) as rpc:
            nonce = rpc.nonce(address)
            page.click("#send")
            frame.get_by_role("button", name="Approve").click()
            out = app.wait("mined", lambda o: o["receipt"] is not None, 30)
            assert out["receipt"] == "success" and out["error"] is None
            assert rpc.nonce(address) == nonce + 1  # exactly one transaction mined
        closed(page, app)

        page.click("#switch")
        out = app.wait("switched", lambda o: o["chainId"] == 31338 or o["error"] is not None)
        assert out["chainId"] == 31338 and out["modal"]["network"] == "eip155:31338", out

        page.click("#disconnect")
        app.wait("disconnected", lambda o: o["status"] == "disconnected" and o["modal"]["connected"] is False)
        assert errors == [], errors
    finally:
        context.close()


@pytest.mark.parametrize("scratch", ["3"], indirect=True, ids=["wagmi3"])
def test_strict_mode_in_development_keeps_one_socket_and_the_session_across_a_reload(
        browser: Any, app_engine: RunningServer) -> None:
    """Issue 40 item 2: StrictMode's unmount-and-remount of every effect made `<ModalProvider
    options>` destroy its modal (ending the session), open a second socket and unmount a root
    mid-render; after a reload the visitor was disconnected."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    sockets: list[str] = []
    complaints: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("console", lambda msg: complaints.append(msg.text)
            if msg.type in ("error", "warning") and "unmount" in msg.text else None)
    page.on("pageerror", lambda error: complaints.append(f"pageerror: {error}"))
    try:
        sessions: list[set[str]] = []
        for load in range(2):  # the first visit, then a reload
            if load == 0:
                page.goto(app_engine.http_url + "/strict")
            else:
                page.reload()
            page.wait_for_function(
                "() => JSON.parse(document.querySelector('#out')?.textContent || '{}').initialized === true")
            page.wait_for_timeout(500)  # a second socket, had there been one, has opened by now
            assert len(sockets) == load + 1, sockets
            sessions.append(set(app_engine.hub.runners))
        assert len(sessions[0]) == 1 and sessions[1] == sessions[0]  # resumed, never left
        assert complaints == []
    finally:
        context.close()


@pytest.mark.parametrize("scratch", ["3", "2"], indirect=True, ids=["wagmi3", "wagmi2"])
def test_wagmi_follows_a_connection_made_in_the_modals_own_ui(
        browser: Any, app_engine: RunningServer) -> None:
    """Issue 40 item 1: the SDK README's setup (WagmiProvider > ModalProvider modal >
    ConnectButton); the visitor presses the SDK's ConnectButton, not wagmi's connect(), and picks
    the Dev Wallet: wagmi's useAccount connects through the modalcore connector and wagmi can
    sign at once; a disconnect made in the modal's Account view reaches wagmi too."""
    context, page, errors = new_page(browser)
    try:
        page.goto(f"{app_engine.http_url}/")
        app = App(page)
        app.wait("rendered", lambda o: o["status"] == "disconnected")
        page.get_by_role("button", name="SDK Connect").click()
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Dev Wallet").click()
        out = app.wait("connected in wagmi", lambda o: o["status"] == "connected")
        assert out["address"] == ACCOUNT_0_CHECKSUM and out["connector"] == "modalcore" and out["chainId"] == 31337
        page.click("#sign")  # ConnectorNotConnectedError before the fix
        out = app.wait("signed", lambda o: o["signature"] is not None or o["error"] is not None)
        assert out["error"] is None and len(out["signature"]) == 132
        # a disconnect made in the modal's Account view
        page.get_by_role("button", name="ETH alice.eth").click()  # the SDK's ConnectButton, now the account button
        page.locator('.wm-card[data-view="Account"]').get_by_role("button", name="Disconnect").click()
        app.wait("disconnected in wagmi", lambda o: o["status"] == "disconnected")
        assert errors == [], errors
    finally:
        context.close()


@pytest.mark.parametrize("scratch", ["3", "2"], indirect=True, ids=["wagmi3", "wagmi2"])
def test_the_hooks_appkit_and_rainbowkit_users_reach_for(browser: Any, app_engine: RunningServer) -> None:
    """Issue 40 item 6, in the scratch app's hooks.tsx (wagmi and the modal from one
    getDefaultConfig call, sign-in on): ConnectButton.Custom's openConnectModal opens the modal,
    the Dev Wallet connects (wagmi too), useWalletInfo names it, useNetwork lists the networks,
    useProvider's provider answers, openChainModal shows Networks, signIn() opens the sign-in
    view and resolves once signed (a SIWX session), signOut() ends it, and useModalEvents heard
    each step."""
    context, page, errors = new_page(browser)
    try:
        page.goto(f"{app_engine.http_url}/hooks")
        app = App(page)
        out = app.wait("mounted", lambda o: o["networks"] and o["signIn"]["enabled"])
        assert out["networks"] == ["eip155:31337", "eip155:31338"] and out["walletInfo"] is None
        assert out["provider"] is False and page.get_attribute("#custom", "data-mounted") == "true"
        assert page.inner_text("#custom-auth") == "unauthenticated"

        page.click("#custom-connect")  # ConnectButton.Custom's openConnectModal
        page.locator('.wm-card[data-view="Connect"]').get_by_role("button", name="Dev Wallet").click()
        out = app.wait("connected", lambda o: o["walletInfo"] is not None and o["wagmi"]["status"] == "connected")
        assert out["walletInfo"]["name"] == "Dev Wallet" and out["walletInfo"]["type"] == "ANNOUNCED"
        assert out["walletInfo"]["icon"].startswith("data:image/")
        assert out["wagmi"]["connector"] == "modalcore" and out["wagmi"]["chainId"] == 31337
        assert out["provider"] is True and out["network"] == "eip155:31337"
        page.locator("#custom-account").wait_for(state="visible")
        assert page.inner_text("#custom-account") != "" and page.inner_text("#custom-chain") != ""

        # sign-in is on and the account has no session: the engine asks at once; the visitor
        # declines for now (sign-in is not required: the modal closes, still connected)
        page.locator('.wm-card[data-view="SIWXSignMessage"]').wait_for(state="visible")
        page.keyboard.press("Escape")
        app.wait("closed", lambda o: o["events"][-1:] == ["MODAL_CLOSE"])

        page.click("#provider-chain")
        out = app.wait("provider answered", lambda o: "chainId" in o["results"])
        assert out["results"]["chainId"] == "0x7a69"

        page.click("#custom-chain")  # openChainModal
        page.locator('.wm-card[data-view="Networks"]').wait_for(state="visible")
        page.keyboard.press("Escape")
        app.wait("closed", lambda o: o["events"][-1:] == ["MODAL_CLOSE"])

        page.click("#sign-in")  # useSignIn().signIn(): the sign-in view, signed with the Dev Wallet
        page.locator('.wm-card[data-view="SIWXSignMessage"]').get_by_role("button", name="Sign", exact=True).click()
        out = app.wait("signed in", lambda o: o["results"].get("signIn") is not None)
        assert out["results"]["signIn"] == "ok" and out["signIn"]["signedIn"] is True and out["signIn"]["token"]
        assert page.inner_text("#custom-auth") == "authenticated"

        page.click("#sign-out")
        out = app.wait("signed out", lambda o: o["signIn"]["signedIn"] is False)
        assert out["signIn"]["token"] is False and out["wagmi"]["status"] == "connected"

        events = out["events"]
        for step in ("MODAL_OPEN", "CONNECT_SUCCESS", "MODAL_CLOSE", "SIWX_AUTH_SUCCESS", "SIWX_SIGN_OUT"):
            assert step in events, events
        assert events.index("CONNECT_SUCCESS") < events.index("SIWX_AUTH_SUCCESS") < events.index("SIWX_SIGN_OUT")
        assert errors == [], errors
    finally:
        context.close()
