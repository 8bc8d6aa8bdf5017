"""A host page on the script tag's loader (issue 40 item 8): `<modalcore-button>` and the
engine's `/static/loader.js`, nothing else, served from another origin as a host's page is
(`serve_loader_page(engine_url)`: 127.0.0.1 on a port of its own).

`LoaderPage.open(browser, base_url, preload=False)` stops the idle preload (requestIdleCallback
never calls back): the page's button is drawn and modal.js is not fetched until the click, the
worst case of a visitor who clicks before the page is idle (a real pointer's hover and
pointerdown fetch it earlier). With `preload=True` it waits until modal.js has been fetched on
idle and the engine's first tree is drawn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.latency.browser import PROBE_SCRIPT
from modalcore_testing import serve_app

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>loader</title><link rel="icon" href="data:,"></head>
<body><modalcore-button project-id="demo" networks="eip155:31337"></modalcore-button>
<script src="%(engine)s/static/loader.js"></script></body></html>"""


@contextlib.contextmanager
def serve_loader_page(engine_url: str) -> Iterator[str]:
    """The page's URL while it is served."""
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE % {"engine": engine_url})

    with serve_app(Starlette(routes=[Route("/", page)])) as server:
        yield f"{server.http_url}/"
NO_IDLE = "window.requestIdleCallback = () => 0;"
DRAWN = "!!document.querySelector('modalcore-button')?.shadowRoot?.querySelector('button')"
# the modal scripts the page fetched: [name, ...] (resource timing)
FETCHED = "performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.startsWith('/static/'))"


class LoaderPage:
    def __init__(self, context: Any, page: Any) -> None:
        self.context = context
        self.page = page
        self.errors: list[str] = []

    @classmethod
    async def open(cls, browser: Any, url: str, *, preload: bool) -> LoaderPage:
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        context.set_default_timeout(15_000)
        await context.add_init_script(PROBE_SCRIPT)
        if not preload:
            await context.add_init_script(NO_IDLE)
        page = await context.new_page()
        loaded = cls(context, page)
        page.on("console", lambda msg: loaded.errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda error: loaded.errors.append(f"pageerror: {error}"))
        await page.goto(url)
        await page.wait_for_function(DRAWN)
        if preload:
            await page.wait_for_function("window.ModalCore && window.ModalCore.React !== undefined")
            await page.wait_for_function("window.__lat.state().card !== null")
        return loaded

    async def fetched(self) -> list[str]:
        paths: list[str] = await self.page.evaluate(FETCHED)
        return paths

    async def close(self) -> None:
        await self.context.close()
