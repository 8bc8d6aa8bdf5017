"""Debian's Chromium as the e2e tests, the Dev Wallet page test and the latency bench launch it
through Playwright: headless, with nothing reaching out on its own (no background networking,
component updates, sync or QUIC). `LOOPBACK_ONLY` also resolves every host but 127.0.0.1 to
nothing, so a page under test can reach only the local servers. Playwright is a test extra
(as for modalcore_dev.latency): nothing the engine runs imports this module."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOOPBACK_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


@contextlib.contextmanager
def sync_chromium(*extra_args: str) -> Iterator[Any]:
    """Chromium launched through Playwright's sync API, closed after; the page tests' browser.
    A missing /usr/bin/chromium is a broken setup (`make chromium`), not a reason to skip."""
    assert CHROMIUM.exists(), f"needs {CHROMIUM} (make chromium)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *extra_args])
        try:
            yield browser
        finally:
            browser.close()
