"""Sign in with Farcaster figures (issue 33) on the production path (issue 45 item 4): the engine
app as `serve` builds it from a config with `[embedded.farcaster]` (the local relay, Farcaster's
IdRegistry on a Hardhat dev chain, the SQLite key vault), under uvicorn; each round is a new
websocket session, and this process plays the host page (the websocket), ConnectingFarcaster's
engine-origin frame (its GET and channel POST with a device key) and the Farcaster client (the
relay's demo client approves).

- Farcaster pressed → channel open: the Connect row's intent until the frame is in the tree, its
  page fetched, and the frame's POST that opens the channel for its key answered (the QR code);
- approved → Account: the demo client's approve (message written and signed, channel answered)
  until the host is told the account is connected: the session reads the channel every POLL_MS
  (1 s), so this holds the wait for the next read; "the read that sees it → Account" is the
  engine's part (relay read, message and signature checked, `idOf` on the chain, the FID's key
  opened, the frame's key registered), from that read's arrival at the relay;
- approved → signed in (the host requires sign-in): as above, then the session's sign-in lookup,
  the SIWX message signed at once by the FID's key, verified and stored: one approval, no second.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from modalcore.embedded.masterkey import MasterKey
from modalcore.server.app import create_app
from modalcore.server.config import dev_networks, parse_config
from modalcore.slices.farcaster import POLL_MS
from modalcore_dev.bench.embedded_client import TIMEOUT_S
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Figure, Lines, line, summary
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, RunningServer, serve_app
from modalcore_testing.device import DeviceKey

ROUNDS = 30


class _StatusReads:
    """ASGI middleware on the relay: when each channel status read arrived (the session's poll)."""

    def __init__(self, app: ASGIApp, reads: list[float]) -> None:
        self.app = app
        self.reads = reads  # perf_counter of each (the relay runs in this process, in uvicorn's thread)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/v1/channel/status":
            self.reads.append(time.perf_counter())
        await self.app(scope, receive, send)


def _ms(name: str, samples: list[float]) -> Figure:
    s = summary(samples)
    return line(name, f"p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms ({len(samples)} runs)", measured=[s["p50"], s["p99"]])


@contextmanager
def _servers(folder: Path, chains: ChainsInfo, reads: list[float]) -> Iterator[tuple[RunningServer, RunningServer]]:
    relay_app = create_relay_app(demo_client=True)
    relay_app.add_middleware(_StatusReads, reads=reads)
    with serve_app(relay_app) as relay:
        key_file = folder / "master.key"
        key_file.write_text(MasterKey.generate().hex())
        section = farcaster_section(relay.http_url, chains.chain(31337), TEST_ORIGIN)
        if section is None:
            raise RuntimeError("the dev chain has no Farcaster IdRegistry")
        config = parse_config({
            "secret": TEST_SECRET,
            "projects": {TEST_PROJECT: {"name": "Bench dApp", "origins": [TEST_ORIGIN]}},
            "networks": dev_networks(chains.rpc_urls, chains.deployment),
            "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key_file), "farcaster": section},
        })
        with serve_app(create_app(config)) as engine:
            yield engine, relay


def _done(sign_in: bool) -> Any:
    def seen(frame: dict[str, Any]) -> bool:
        if frame["t"] != "host_event":
            return False
        if sign_in:
            return frame.get("kind") == "siwx" and frame["data"].get("signedIn") is True
        return frame.get("kind") == "account" and frame["data"].get("isConnected") is True
    return seen


async def _round(client: Client, http: httpx.AsyncClient, relay: httpx.AsyncClient, reads: list[float], fid: int,
                 sign_in: bool) -> tuple[float, float, float]:
    """(pressed → channel open, approved → done, the read that saw it → done), in ms."""
    options: dict[str, Any] = {"networks": ["eip155:31337"], **({"siwx": {"required": True}} if sign_in else {})}
    await client.join(opts=options)
    await client.intent("host", "open", {})
    await client.quiet(0.05)
    start = time.perf_counter()
    await client.intent("connect/social/farcaster", "press")
    got = await client.recv_until(lambda f: "/embedded/farcaster?session=" in str(f), timeout=TIMEOUT_S)
    src = re.search(r"/embedded/farcaster\?session=[\w-]+&(?:amp;)?attempt=(\w+)", str(got[-1]))
    if src is None:
        raise RuntimeError("no Farcaster frame in the tree")
    device = DeviceKey()
    page = await http.get(f"/embedded/farcaster?session={client.session}&attempt={src.group(1)}")
    opened = await http.post("/embedded/farcaster/channel", json={"session": client.session, "attempt": src.group(1),
                                                                   "public_key": device.spki})
    drawn = 1000 * (time.perf_counter() - start)
    if page.status_code != 200 or opened.status_code != 200 or not opened.json()["qr"].startswith("<svg"):
        raise RuntimeError(f"the frame's channel was not opened: {page.status_code}, {opened.text[:200]}")
    start = time.perf_counter()
    answer = await relay.post("/client/approve", json={"url": opened.json()["url"], "fid": fid})
    if answer.status_code != 201:
        raise RuntimeError(f"the demo client did not approve: {answer.text}")
    answered = time.perf_counter()
    await client.recv_until(_done(sign_in), timeout=TIMEOUT_S)
    end = time.perf_counter()
    seen_at = min((t for t in list(reads) if t > answered), default=answered)
    return drawn, 1000 * (end - start), 1000 * (end - seen_at)


async def _measure(engine: RunningServer, relay_url: str, reads: list[float], rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"drawn": [], "approved": [], "read": [], "signed": [], "signed_read": []}
    headers = {"Origin": engine.http_url, "Sec-Fetch-Site": "same-origin"}  # the frame's own origin
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=TIMEOUT_S, headers=headers) as http, \
            httpx.AsyncClient(base_url=relay_url, timeout=TIMEOUT_S) as relay:
        for i in range(2 * rounds):
            sign_in = i % 2 == 1  # every other round: the host requires sign-in (interleaved: same load)
            async with engine.client() as client:
                drawn, approved, read = await _round(client, http, relay, reads, 1 + i % 3, sign_in)
            if sign_in:
                out["signed"].append(approved)
                out["signed_read"].append(read)
            else:
                out["drawn"].append(drawn)
                out["approved"].append(approved)
                out["read"].append(read)
    return out


def run(parts: Parts) -> Lines:
    rounds = parts.size(ROUNDS)
    reads: list[float] = []
    with tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains, \
            _servers(Path(folder), chains, reads) as (engine, relay):
        got = asyncio.run(_measure(engine, relay.http_url, reads, rounds))
    return [
        "Sign in with Farcaster (engine app under uvicorn, a websocket session per round, the frame's POSTs over "
        f"HTTP; local relay and its demo client, IdRegistry on Hardhat, SQLite vault; the session reads every {POLL_MS} ms)",
        _ms("Farcaster pressed → frame drawn, channel opened for its key", got["drawn"]),
        _ms("demo client approves → Account (with the wait for a read)", got["approved"]),
        _ms("  the read that sees it → Account", got["read"]),
        _ms("sign-in required: approves → signed in (with the wait)", got["signed"]),
        _ms("  the read that sees it → signed in", got["signed_read"]),
    ]


if __name__ == "__main__":
    for text in run(Parts()):
        print(text)
