"""Debian's Chromium as the e2e tests, the Dev Wallet page test and the latency bench launch it
through Playwright: headless, with nothing reaching out on its own (no background networking,
component updates, sync or QUIC). `LOOPBACK_ONLY` also resolves every host but 127.0.0.1 to
nothing, so a page under test can reach only the local servers."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOOPBACK_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
