"""Embedded wallet figures (issue 15) on the production path (issue 45 item 4): the engine app as
`serve` builds it from a config with `[embedded]` (SQLite code store and key vault, a master key
file, SMTP to a local aiosmtpd server) and the two dev chains' networks, under uvicorn; each round
is a new websocket session and a new address, and this process plays the host page (the
websocket) and the engine-origin frames (their HTTP POSTs with a device key, as a browser would).

- email submitted → code sent: the submit intent until the sign-in frame is drawn and the code is
  in the SMTP server's mailbox;
- code submitted → Account: the frame's POST of the code (its key registered, the wallet's key
  created on first sign-in) until the host is told the account is connected;
- sign request → approval frame: the host's `personal_sign` until the approval frame is in the
  tree, then that frame's page fetched (GET /embedded/approve);
- signed Approve → host answer: the frame's challenge and signed Approve POSTs until the host's
  `rpc` answer (the engine's key signed);
- wallet_getAssets request → answer: the host's request → the engine's `balances` reads of both
  local Hardhat chains (native + configured tokens) → the host's `rpc` answer.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from modalcore.embedded.masterkey import MasterKey
from modalcore.server.app import create_app
from modalcore.server.config import dev_networks, parse_config
from modalcore_dev.bench.embedded_client import TIMEOUT_S, answers, approve, ask, post_code, submit_email
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Figure, Lines, line, summary
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, RunningServer, serve_app
from modalcore_testing.device import DeviceKey

ROUNDS = 40
ASSET_ASKS = 5  # wallet_getAssets requests per signed-in session
NETWORKS = ["eip155:31337", "eip155:31338"]


def _ms(name: str, samples: list[float]) -> Figure:
    s = summary(samples)
    return line(name, f"p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms ({len(samples)} runs)", measured=[s["p50"], s["p99"]])


@contextmanager
def _engine(folder: Path, chains: ChainsInfo, smtp_port: int,
            names: dict[int, str] | None = None) -> Iterator[RunningServer]:
    key_file = folder / "master.key"
    key_file.write_text(MasterKey.generate().hex())
    config = parse_config({
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Bench dApp", "origins": [TEST_ORIGIN]}},
        "networks": dev_networks(chains.rpc_urls, chains.deployment, names=names),
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key_file),
                     # every round signs in from 127.0.0.1 (a new address and session each time)
                     "mail_budget": {"address_per_minute": 0, "address_per_hour": 0},
                     "smtp": {"host": "127.0.0.1", "port": smtp_port, "tls": "none",
                              "sender": "Wallet <no-reply@modal.test>"}},
    })
    with serve_app(create_app(config)) as engine:
        yield engine


async def _measure(engine: RunningServer, smtp: LocalSmtpServer, rounds: int,
                   asks: int) -> tuple[list[float], list[float], list[float], list[float], list[float]]:
    sent: list[float] = []
    connected: list[float] = []
    framed: list[float] = []
    signed: list[float] = []
    assets: list[float] = []
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=TIMEOUT_S) as http:
        for i in range(rounds):
            device = DeviceKey()
            async with engine.client() as client:
                await client.join(opts={"networks": NETWORKS})
                await client.intent("host", "open", {})
                await client.quiet(0.05)
                start = time.perf_counter()
                code = await submit_email(client, smtp, f"bench{i}@example.com")
                sent.append(1000 * (time.perf_counter() - start))
                start = time.perf_counter()
                address = await post_code(client, http, code, device)
                connected.append(1000 * (time.perf_counter() - start))
                for n in range(asks):
                    await client.quiet(0.02)
                    start = time.perf_counter()
                    await client.intent("host", "rpc", {"id": f"a{n}", "method": "wallet_getAssets",
                                                        "params": [{"account": address}]})
                    frames = await client.recv_until(lambda f: bool(answers([f])), timeout=TIMEOUT_S)
                    assets.append(1000 * (time.perf_counter() - start))
                    answer = answers(frames)[-1]
                    if not answer["ok"] or sorted(answer["result"]) != ["0x7a69", "0x7a6a"]:
                        raise RuntimeError(f"wallet_getAssets answered {answer}")
                await client.quiet(0.05)
                start = time.perf_counter()
                eid = await ask(client, "s", "personal_sign", ["0x" + f"bench {i}".encode().hex(), address])
                page = await http.get(f"/embedded/approve?session={client.session}&request={eid}")
                framed.append(1000 * (time.perf_counter() - start))
                if page.status_code != 200:
                    raise RuntimeError(f"the approval frame's page answered {page.status_code}")
                start = time.perf_counter()
                await approve(client, http, eid, device)
                signed.append(1000 * (time.perf_counter() - start))
    return sent, connected, framed, signed, assets


def run(parts: Parts) -> Lines:
    rounds, asks = parts.size(ROUNDS), parts.size(ASSET_ASKS)
    smtp = LocalSmtpServer().start()
    try:
        with tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains, \
                _engine(Path(folder), chains, smtp.port) as engine:
            sent, connected, framed, signed, assets = asyncio.run(_measure(engine, smtp, rounds, asks))
    finally:
        smtp.stop()
    return [
        "Embedded wallet (engine app under uvicorn, a websocket session per round, the frames' POSTs "
        "over HTTP; local SMTP, SQLite, Hardhat)",
        _ms("email submitted → code sent (SMTP accepted)", sent),
        _ms("code submitted → Account (key created)", connected),
        _ms("sign request → approval frame drawn, its page fetched", framed),
        _ms("signed Approve → host answer (personal_sign)", signed),
        _ms("wallet_getAssets request → answer (2 Hardhat chains)", assets),
    ]


if __name__ == "__main__":
    print("\n".join(map(str, run(Parts()))))
