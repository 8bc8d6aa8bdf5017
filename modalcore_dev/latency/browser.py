"""Debian's Chromium (Playwright, async API) on an event loop of its own, and in-page probes.

Shared by the latency tests (tests/latency) and the benchmark (modalcore_dev/bench/latency_bench.py).
The browser runs in a thread of its own (`BrowserThread.run(coro)`), so it works the same from a
synchronous test, a benchmark, or a test session where another Playwright already holds the main
thread. Playwright never downloads a browser here: it drives /usr/bin/chromium.

In the page, `PROBE_SCRIPT` (an init script) counts the websocket frames the page receives (a
listener added before the renderer's own) and exposes `window.__lat`:

- `state()`: what the modal draws now: overlay state, the card's view, the visible views, the
  header title, the labels of busy elements;
- `measure({click, expect, timeout})`: clicks (a synthetic `el.click()`) and follows the next
  animation frames: what the first frame after the click showed and how many engine frames had
  arrived by then, and the first frame at which `expect` holds, in ms after the click
  (`performance.now()`); a MutationObserver gives the time of the first DOM change.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

from playwright.async_api import async_playwright

from modalcore_testing.chromium import CHROMIUM as CHROMIUM  # re-exported: the benches launch it too
from modalcore_testing.chromium import CHROMIUM_ARGS
from modalcore.server.config import EngineConfig, dev_networks, parse_config

DEMO_PROJECT = "demo"

T = TypeVar("T")


def demo_config(rpc_urls: dict[int, str], deployment: dict[str, Any] | None, folder: Path) -> EngineConfig:
    """The `make run` composition (modalcore_dev/demo.py) with every file in `folder`."""
    return parse_config({
        "secret": "latency-secret-not-for-production",
        "projects": {DEMO_PROJECT: {"name": "Modalcore demo dApp", "origins": []}},
        "networks": dev_networks(rpc_urls, deployment),
        "devchain_proxy": True,  # the Dev Wallet reaches the chains through /devchain
        "demo_page": True,  # the demo page at / on the engine's origin
        "siwx": {"db": str(folder / "siwx.db"), "key_file": str(folder / "engine.key")},
    })


class BrowserThread:
    """One Chromium, driven from an event loop in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="chromium", daemon=True)
        self.playwright: Any = None
        self.browser: Any = None

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> BrowserThread:
        if not CHROMIUM.exists():
            raise RuntimeError(f"needs {CHROMIUM} (make chromium)")
        self.thread.start()
        self.run(self._launch())
        return self

    async def _launch(self) -> None:
        self.playwright = await async_playwright().start()
        self.browser = await self.playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)

    async def _close(self) -> None:
        if self.browser is not None:
            await self.browser.close()
        if self.playwright is not None:
            await self.playwright.stop()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.run(self._close(), timeout=20)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@contextlib.contextmanager
def chromium() -> Iterator[BrowserThread]:
    browser = BrowserThread().start()
    try:
        yield browser
    finally:
        browser.close()


PROBE_SCRIPT = r"""
(() => {
  const Native = window.WebSocket;
  const L = { frames: 0, lastFrameAt: 0 };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      // registered before the renderer sets onmessage: counts a frame before it is applied
      this.addEventListener('message', () => { L.frames += 1; L.lastFrameAt = performance.now(); });
    }
  };
  const root = () => document.querySelector('modalcore-modal')?.shadowRoot ?? null;
  // drawn: laid out and not visibility:hidden (a closed modal stays laid out, invisible)
  const shown = (el) => el.getClientRects().length > 0 && el.checkVisibility({ visibilityProperty: true });
  L.root = root;
  L.state = () => {
    const r = root();
    const overlay = r?.querySelector('.wm-overlay');
    const card = r?.querySelector('.wm-card');
    const views = r ? [...r.querySelectorAll('.wm-view[data-view]')].filter(shown).map((v) => v.getAttribute('data-view')) : [];
    const busy = r ? [...r.querySelectorAll('[aria-busy="true"]')].filter(shown).map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim()) : [];
    return {
      overlay: overlay?.getAttribute('data-state') ?? null,
      visible: !!card && shown(card),
      card: card?.getAttribute('data-view') ?? null,
      views,
      title: (r?.querySelector('.wm-header-c')?.textContent ?? '').trim(),
      busy,
    };
  };
  // expect: {key: value} (all must hold), or a list of those (any one)
  L.matches = (s, expect) => Array.isArray(expect) ? expect.some((e) => L.matches(s, e)) : Object.entries(expect).every(([k, v]) => {
    if (k === 'busy') return s.busy.some((b) => b.includes(v));
    return JSON.stringify(s[k]) === JSON.stringify(v);
  });
  // [where, selector, text?]: where is 'page', 'modal' (inside the modal's shadow root) or
  // 'button' (inside the <modalcore-button> element's)
  L.find = ([where, selector, text]) => {
    const scope = where === 'page' ? document : where === 'button' ? document.querySelector('modalcore-button')?.shadowRoot : root();
    const all = scope ? [...scope.querySelectorAll(selector)] : [];
    return all.find((el) => shown(el) && (!text || (el.getAttribute('aria-label') || el.textContent || '').includes(text))) ?? null;
  };
  L.measure = ({ click, expect, timeout }) => new Promise((resolve) => {
    const el = L.find(click);
    if (!el) { resolve({ error: 'nothing to click: ' + JSON.stringify(click), state: L.state() }); return; }
    const r = root();
    let mutatedAt = null;
    const mo = new MutationObserver(() => { if (mutatedAt === null) mutatedAt = performance.now(); });
    if (r) mo.observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
    const frames0 = L.frames;
    const t0 = performance.now();
    el.click();
    const sync = { state: L.state(), frames: L.frames - frames0 };
    let first = null;
    const tick = () => {
      const now = performance.now();
      const s = L.state();
      const frames = L.frames - frames0;
      if (first === null) first = { state: s, frames, ms: now - t0 };
      const ok = L.matches(s, expect);
      if (ok || now - t0 > timeout) {
        mo.disconnect();
        resolve({ sync, first, ok, ms: ok ? now - t0 : null, frames, state: s,
                  mutationMs: mutatedAt === null ? null : mutatedAt - t0 });
        return;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  // Click to *shown* and *visible* (issue 14), polled every animation frame after a synthetic
  // click dispatched in the page (`performance.now()` taken just before it). The card is shown at
  // the first frame where it has a non-zero box, the product of the computed opacities along its
  // ancestor chain (crossing shadow roots) is above 0, and every opacity animation on that chain
  // has started; visible at the first frame where that product is 1 and no opacity animation on
  // the chain is running.
  const chain = (el) => {
    const out = [];
    for (let e = el; e; e = e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null)) out.push(e);
    return out;
  };
  const fades = (e) => e.getAnimations().filter((a) => a.effect && a.effect.getKeyframes().some((k) => 'opacity' in k));
  L.look = () => {
    const card = root()?.querySelector('.wm-card');
    if (!card) return { box: false, opacity: 0, started: false, running: false };
    const r = card.getBoundingClientRect();
    let opacity = 1;
    let started = true;
    let running = false;
    for (const e of chain(card)) {
      opacity *= Number(getComputedStyle(e).opacity);
      for (const a of fades(e)) {
        if (a.startTime === null || a.pending) started = false;
        if (a.playState === 'running' || a.pending) running = true;
      }
    }
    return { box: r.width > 0 && r.height > 0, opacity, started, running };
  };
  L.openTimes = ({ click, timeout }) => new Promise((resolve) => {
    const el = L.find(click);
    if (!el) { resolve({ error: 'nothing to click: ' + JSON.stringify(click), state: L.state() }); return; }
    let shown = null;
    const t0 = performance.now();
    el.click();
    const tick = () => {
      const now = performance.now();
      const s = L.look();
      if (shown === null && s.box && s.opacity > 0 && s.started) shown = now - t0;
      if (shown !== null && s.opacity >= 0.999 && !s.running) { resolve({ shown, visible: now - t0 }); return; }
      if (now - t0 > timeout) { resolve({ shown, visible: null, look: s }); return; }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  // Frames of the modal drawn over `ms` (closing animation checks): [{overlay, card, views}]
  L.film = (ms) => new Promise((resolve) => {
    const t0 = performance.now();
    const out = [];
    const tick = () => {
      const s = L.state();
      out.push({ t: performance.now() - t0, overlay: s.overlay, card: s.card, views: s.views });
      if (performance.now() - t0 > ms) resolve(out); else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  window.__lat = L;
})();
"""

# A click and its expected outcome, as `window.__lat.measure` takes them.
CONNECT_BUTTON = ["page", ".modalcore-connect-button"]
ELEMENT_BUTTON = ["button", "button"]  # <modalcore-button>'s connect button (the loader page)
BACK_BUTTON = ["modal", 'button[aria-label="Back"]']
CLOSE_BUTTON = ["modal", 'button[aria-label="Close"]']


def wallet_button(name: str = "Dev Wallet") -> list[str]:
    return ["modal", "button.wm-wallet", name]


class DemoPage:
    """The demo page (served at `/` by the engine) in a fresh browser context."""

    def __init__(self, context: Any, page: Any) -> None:
        self.context = context
        self.page = page
        self.errors: list[str] = []

    @classmethod
    async def open(cls, browser: Any, base_url: str, query: str = "") -> DemoPage:
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        context.set_default_timeout(15_000)
        await context.add_init_script(PROBE_SCRIPT)
        page = await context.new_page()
        demo = cls(context, page)
        page.on("console", lambda msg: demo.errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda error: demo.errors.append(f"pageerror: {error}"))
        await page.goto(f"{base_url}/{query}")
        await page.wait_for_function("window.demoModal !== undefined && window.devWallet !== undefined")
        # the engine's first tree is drawn (prepared, closed)
        await page.wait_for_function("window.__lat.state().card !== null")
        return demo

    async def close(self) -> None:
        await self.context.close()

    async def eval(self, script: str, arg: Any = None) -> Any:
        return await self.page.evaluate(script, arg)

    async def state(self) -> dict[str, Any]:
        state: dict[str, Any] = await self.eval("window.__lat.state()")
        return state

    async def frames(self) -> int:
        count: int = await self.eval("window.__lat.frames")
        return count

    async def quiet(self, ms: float = 300, timeout: float = 10.0) -> None:
        """Wait until no engine frame has arrived for `ms`, counted from now at the earliest (keep
        `ms` above the round trip, so that the answer to a click just made is waited for)."""
        since = await self.eval("performance.now()")
        await self.page.wait_for_function(
            f"performance.now() - Math.max(window.__lat.lastFrameAt, {since}) >= {ms}",
            timeout=timeout * 1000, polling=20)

    async def wait_state(self, expect: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        await self.page.wait_for_function("(e) => window.__lat.matches(window.__lat.state(), e)", arg=expect,
                                          timeout=timeout * 1000, polling="raf")
        return await self.state()

    async def measure(
        self, click: list[str], expect: dict[str, Any] | list[dict[str, Any]], timeout: float = 5000
    ) -> dict[str, Any]:
        """Click and follow the frames until `expect` holds (see the module docstring)."""
        result: dict[str, Any] = await self.eval("(a) => window.__lat.measure(a)",
                                                 {"click": click, "expect": expect, "timeout": timeout})
        if "error" in result:
            raise AssertionError(f"{result['error']}; the modal shows {result['state']}")
        return result

    async def open_times(self, click: list[str], timeout: float = 5000) -> dict[str, Any]:
        """Click and follow the frames until the card is visible: `{shown, visible}` in ms."""
        result: dict[str, Any] = await self.eval("(a) => window.__lat.openTimes(a)", {"click": click, "timeout": timeout})
        if "error" in result:
            raise AssertionError(f"{result['error']}; the modal shows {result['state']}")
        return result

    async def film(self, ms: float) -> list[dict[str, Any]]:
        frames: list[dict[str, Any]] = await self.eval("(ms) => window.__lat.film(ms)", ms)
        return frames
