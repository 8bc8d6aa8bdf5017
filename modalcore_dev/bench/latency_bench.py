"""Click → first visible change in Chromium, at 0 and 100 ms added round trip; the scripts' sizes.

The demo page, served by the engine, runs in Debian's Chromium behind the delay proxy
(modalcore_dev/latency). Each round: open the modal (the Connect button), press the Dev Wallet in
the list (it declines at once, so every round starts disconnected), go back, close. Each click is
a synthetic `el.click()` from page JS; the figure is `performance.now()` from just before the click
to the first animation frame at which the modal shows the change (the overlay open on the right
view; the wallet row busy, or already the engine's next view; the previous view shown). "local"
counts the rounds whose change was on screen before any websocket frame from the engine had
reached the page.

The loader (issue 40 item 8): the gzip bytes of the script tag's file (dist/loader.js, bound
10 KiB), of the modal it fetches later (dist/modal.js) and of the npm package's critical paths
and modal chunk, without and with React; and click → shown on a page with only `loader.js` and
`<modalcore-button>` (modalcore_dev/latency/loader_page.py), once modal.js was fetched on idle
and when the click comes before any preload (modal.js fetched on the click).

The engine down (issue 39): on a host page whose engine URL has nothing listening
(modalcore_dev/latency/unreachable_page.py), Connect pressed → the renderer's own "Wallet
service unavailable" view shown and visible, each on a fresh page; the bound is 2 s.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from modalcore_dev.latency.browser import (
    BACK_BUTTON,
    CHROMIUM,
    CONNECT_BUTTON,
    ELEMENT_BUTTON,
    PROBE_SCRIPT,
    BrowserThread,
    DemoPage,
    chromium,
    demo_config,
    wallet_button,
)
from modalcore_dev.latency.loader_page import DRAWN, LoaderPage, serve_loader_page
from modalcore_dev.latency.proxy import running_proxy
from modalcore_dev.latency.unreachable_page import serve_unreachable_page
from modalcore.netports import free_port
from modalcore.server.config import REPO_ROOT
from modalcore_testing import start_server
from modalcore_dev.bench.parts import MissingPart, Parts
from modalcore_dev.bench.stats import Lines, Skipped, line, percentile

ROUNDS = 20
RTTS_MS = (0, 100)
BUNDLE = REPO_ROOT / "renderer" / "dist" / "modal.js"
LOADER = REPO_ROOT / "renderer" / "dist" / "loader.js"
LOADER_BOUND = 10 * 1024  # gzip bytes (issue 40 item 8); renderer/build.mjs refuses a bigger one
# written by renderer/build-sdk.mjs: gzip bytes of each npm entry with its chunks, React excluded
SDK_SIZES = REPO_ROOT / "renderer" / "dist" / "sdk-sizes.json"
# The chains are not started: no round connects a wallet (the Dev Wallet declines at once).
RPC_URLS = {31337: "http://127.0.0.1:8545", 31338: "http://127.0.0.1:8546"}

STEPS: list[tuple[str, list[str], dict[str, Any] | list[dict[str, Any]]]] = [
    ("open modal", CONNECT_BUTTON, {"overlay": "open", "card": "Connect", "views": ["Connect"]}),
    # the row marked busy; with no delay the engine's answer may come first (the wallet declines at once)
    ("press a wallet in the list", wallet_button(), [{"busy": "Dev Wallet"}, {"card": "ConnectingExternal"}]),
    ("back", BACK_BUTTON, {"views": ["Connect"]}),
]


def gzip_size(path: Path) -> int:
    """What the engine sends a browser that takes gzip: the build's `.gz` beside the file."""
    beside = path.with_name(path.name + ".gz")
    return len(beside.read_bytes()) if beside.exists() else len(gzip.compress(path.read_bytes(), compresslevel=9))


def bundle_lines() -> Lines:
    if not BUNDLE.exists() or not LOADER.exists():
        raise MissingPart("renderer/dist/modal.js or loader.js is not built (`make deps`)")
    loader, modal = gzip_size(LOADER), gzip_size(BUNDLE)
    return [
        line("script tag's file, the critical path (dist/loader.js: <modalcore-button>, no React), gzip",
             f"{loader:,} B ({loader / 1024:.1f} KiB)", "≤ 10 KiB", [loader]),
        line("  the modal it fetches on idle / hover / open() (dist/modal.js, React incl.), gzip",
             f"{modal:,} B ({modal / 1024:.1f} KiB; {len(BUNDLE.read_bytes()):,} B minified)", "≤ 86 KiB", [modal]),
        *sdk_lines(),
    ]


def sdk_lines() -> Lines:
    """The npm package (@modalcore/sdk, built from renderer/src/sdk): each entry's critical path
    (static imports) and the modal chunk it imports later, gzip, without React and with it."""
    built = subprocess.run(["node", "build-sdk.mjs"], cwd=REPO_ROOT / "renderer", capture_output=True,
                           text=True, timeout=300)
    if built.returncode != 0 or not SDK_SIZES.exists():
        raise RuntimeError(f"renderer/build-sdk.mjs failed: {(built.stderr.strip().splitlines() or [''])[-1]}")
    sizes: dict[str, int] = json.loads(SDK_SIZES.read_text())
    kib = {name: f"{size:,} B ({size / 1024:.1f} KiB)" for name, size in sizes.items()}
    out: Lines = [line(f"  npm @modalcore/sdk{'' if name == 'index' else '/' + name} critical path, gzip without React",
                       kib[name], "≤ 10 KiB", [sizes[name]]) for name in ("index", "react", "wagmi", "elements")]
    out += [
        line("  npm plain + React entries' critical path, gzip without React / with React",
             f"{kib['index+react']} / {kib['index+react with React']}", "≤ 10 KiB",
             [sizes["index+react"], sizes["index+react with React"]]),
        line("  npm modal chunk (imported on idle / hover / open()), gzip without React", kib["modal chunk"],
             measured=[sizes["modal chunk"]]),
        line("  npm whole SDK (plain + React entries, all chunks), gzip without React / with React",
             f"{kib['whole']} / {kib['whole with React']}", measured=[sizes["whole"], sizes["whole with React"]]),
    ]
    return out


async def _rounds(browser: BrowserThread, base_url: str, rtt_ms: float, rounds: int) -> dict[str, list[dict[str, Any]]]:
    demo = await DemoPage.open(browser.browser, base_url)
    settle = max(150.0, rtt_ms + 150)
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in STEPS}
    try:
        await demo.quiet(settle)
        for _ in range(rounds):
            for name, click, expect in STEPS:
                if name.startswith("press"):
                    await demo.eval("window.devWallet.setRejectNext(true)")
                samples[name].append(await demo.measure(click, expect))
                if name.startswith("press"):
                    await demo.wait_state({"card": "ConnectingExternal"})
                await demo.quiet(settle)
            await demo.eval("window.demoModal.close()")
            await demo.wait_state({"overlay": "closed"})
            await demo.quiet(settle)
        if demo.errors:
            raise RuntimeError(f"the page logged errors: {demo.errors[:3]}")
    finally:
        await demo.close()
    return samples


COLD_LOADS = 20
UNREACHABLE_VIEW = "Unreachable"  # the view the renderer draws itself (renderer/src/offline.ts)


async def _cold_opens(browser: BrowserThread, base_url: str, loads: int) -> list[dict[str, Any]]:
    """Click → shown / visible, each on a freshly loaded page once the network is idle."""
    out = []
    for _ in range(loads):
        demo = await DemoPage.open(browser.browser, base_url)
        try:
            await demo.page.wait_for_load_state("networkidle")
            out.append(await demo.open_times(CONNECT_BUTTON))
            if demo.errors:
                raise RuntimeError(f"the page logged errors: {demo.errors[:3]}")
        finally:
            await demo.close()
    return out


async def _loader_opens(browser: BrowserThread, page_url: str, loads: int, preload: bool) -> list[dict[str, Any]]:
    """Click → shown / visible on the loader page (loader_page.py), each on a fresh page: after
    modal.js was fetched on idle and the engine's first tree drawn, or before anything was."""
    out = []
    hashed = f"/static/modal.{hashlib.sha256(BUNDLE.read_bytes()).hexdigest()[:12]}.js"
    for _ in range(loads):
        page = await LoaderPage.open(browser.browser, page_url, preload=preload)
        try:
            before = await page.fetched()
            if (hashed in before) != preload:
                raise RuntimeError(f"modal.js {'not ' if preload else ''}fetched before the click: {before}")
            result = await page.page.evaluate("(a) => window.__lat.openTimes(a)", {"click": ELEMENT_BUTTON, "timeout": 10_000})
            if "error" in result:
                raise RuntimeError(f"loader page: {result['error']}")
            fetched = await page.fetched()
            if hashed not in fetched or "/static/modal.js" in fetched:
                raise RuntimeError(f"the loader did not fetch the hashed modal.js {hashed}: {fetched}")
            if page.errors:
                raise RuntimeError(f"the loader page logged errors: {page.errors[:3]}")
            out.append(result)
        finally:
            await page.close()
    return out


async def _unreachable_opens(browser: BrowserThread, page_url: str, loads: int) -> list[dict[str, Any]]:
    """Connect pressed → the unreachable view shown / visible, each on a fresh page whose engine
    URL has nothing listening (its socket refused; the renderer draws the view itself)."""
    out = []
    for _ in range(loads):
        context = await browser.browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            context.set_default_timeout(15_000)
            await context.add_init_script(PROBE_SCRIPT)
            page = await context.new_page()
            await page.goto(page_url + "/")
            await page.wait_for_function(DRAWN)
            result = await page.evaluate("(a) => window.__lat.openTimes(a)", {"click": ELEMENT_BUTTON, "timeout": 10_000})
            if "error" in result:
                raise RuntimeError(f"unreachable page: {result['error']}")
            card = (await page.evaluate("window.__lat.state()"))["card"]
            if card != UNREACHABLE_VIEW:
                raise RuntimeError(f"the press showed {card!r}, not the {UNREACHABLE_VIEW} view")
            out.append(result)
        finally:
            await context.close()
    return out


def _open_lines(label: str, results: list[dict[str, Any]], bound: str = "") -> Lines:
    shown = [r["shown"] for r in results if r.get("shown") is not None]
    visible = [r["visible"] for r in results if r.get("visible") is not None]
    if len(shown) != len(results) or len(visible) != len(results):
        raise RuntimeError(f"{label}: the card was not shown in {len(results) - len(shown)} and not visible in "
                           f"{len(results) - len(visible)} of {len(results)} loads")
    return [line(f"  {label}: click → shown / visible, p50 (min–max)",
                 f"{percentile(shown, 50):.1f} ms ({min(shown):.1f}–{max(shown):.1f}) / "
                 f"{percentile(visible, 50):.1f} ms ({min(visible):.1f}–{max(visible):.1f})",
                 bound, [percentile(shown, 50), percentile(visible, 50)])]


def _figures(results: list[dict[str, Any]]) -> tuple[float, float, int]:
    times = [r["ms"] for r in results if r.get("ok")]
    if len(times) < len(results):
        return float("nan"), float("nan"), 0
    local = sum(1 for r in results if r["frames"] == 0)
    return percentile(times, 50), percentile(times, 90), local


def run(parts: Parts) -> Lines:
    out: Lines = ["Latency, demo page in Chromium through the delay proxy:"]
    out += bundle_lines()
    if not CHROMIUM.exists():
        out.append(Skipped("click → first visible change", "no /usr/bin/chromium (make chromium)"))
        return out
    rounds, loads = parts.size(ROUNDS), parts.size(COLD_LOADS)
    by_rtt: dict[int, dict[str, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory() as folder, \
            start_server(demo_config(RPC_URLS, None, Path(folder))) as engine, \
            running_proxy(engine.port, delay_ms=0) as proxy, serve_loader_page(engine.http_url) as loader_page, \
            serve_unreachable_page(BUNDLE, f"http://127.0.0.1:{free_port()}") as unreachable_page, \
            chromium() as browser:
        cold = browser.run(_cold_opens(browser, engine.http_url, loads), timeout=600)
        unreachable = browser.run(_unreachable_opens(browser, unreachable_page, loads), timeout=600)
        preloaded = browser.run(_loader_opens(browser, loader_page, loads, preload=True), timeout=600)
        on_click = browser.run(_loader_opens(browser, loader_page, loads, preload=False), timeout=600)
        for rtt in RTTS_MS:
            proxy.delay_ms = rtt / 2
            by_rtt[rtt] = browser.run(_rounds(browser, proxy.http_url, rtt, rounds), timeout=300)
    shown = [r["shown"] for r in cold if r.get("shown") is not None]
    visible = [r["visible"] for r in cold if r.get("visible") is not None]
    out.append(f"  click → card shown (non-zero box, opacity > 0 along its ancestors, its fades started) and"
               f" visible (opacity 1, no fade running), {loads} cold page loads after network idle:")
    if len(shown) != len(cold) or len(visible) != len(cold):
        raise RuntimeError(f"the card was not shown in {len(cold) - len(shown)} and not visible in "
                           f"{len(cold) - len(visible)} of {len(cold)} loads")
    out.append(line("  click → shown, p50 (min–max)",
                    f"{percentile(shown, 50):.1f} ms ({min(shown):.1f}–{max(shown):.1f})", "p50 ≤ 20 ms",
                    [percentile(shown, 50)]))
    out.append(line("  click → visible, p50 (min–max)",
                    f"{percentile(visible, 50):.1f} ms ({min(visible):.1f}–{max(visible):.1f})", "p50 ≤ 170 ms",
                    [percentile(visible, 50)]))
    out.append(f"  the loader page (loader.js + <modalcore-button>, no proxy), {loads} fresh page loads each:")
    out += _open_lines("modal.js fetched on idle before the click", preloaded, "shown p50 ≤ 20 ms")
    out += _open_lines("clicked before any preload (modal.js fetched on the click)", on_click)
    out.append(f"  the engine down (nothing listens at its URL; modal.js from the host), {loads} fresh page loads:")
    out += _open_lines("the unreachable view", unreachable, "shown ≤ 2 s each")
    out.append(f"  click → first frame showing the change, {rounds} rounds (p50 / p90, local = before any engine frame):")
    for name, _, _ in STEPS:
        for rtt in RTTS_MS:
            p50, p90, local = _figures(by_rtt[rtt][name])
            out.append(line(f"  {name}, +{rtt} ms round trip",
                            f"{p50:.1f} / {p90:.1f} ms, local {local}/{rounds}", "p50 ≤ 20 ms", [p50, p90]))
    return out
