"""Three engine hosts for the tests of issue 42 item 3 (tests/durable/test_three_hosts.py): three
`serve` processes, each in its own working folder with its own copy of one config (no file is
shared: the master key, the engine's signing key and its secret are copied, as an operator
deploys them), on one Redis (live sessions, routing) and one PostgreSQL (`[database] url`: every
durable record), behind nginx with the documented config (docs/operators/nginx.md).

nginx listens on a front port (the documented upstream of all three) and on one door per host
(the same server block, its upstream that host alone): a test picks the host of each request by
the door it uses, so it can send every request to another host than the previous one."""

from __future__ import annotations

import contextlib
import itertools
import json
import shutil
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from modalcore.__main__ import main
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import HOST, free_port
from modalcore.server.config import dev_networks
from modalcore.siwx.backend.tokens import load_or_create_key
from modalcore_dev.bench.embedded_client import post_code, submit_email
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client
from modalcore_testing.device import DeviceKey
from modalcore_testing.nginx import documented, run_nginx
from modalcore_testing.postgres import PostgresProcess
from modalcore_testing.serve import ServeProcess, launch_serve

NAMES = ("a", "b", "c")
_prefixes = itertools.count()
STEP_S = 60.0  # a loaded machine: generous, and never asserted as a duration
OPTS = {"networks": ["eip155:31337"], "metadata": {"name": "Three hosts"}}


@dataclass
class Host:
    name: str
    engine: ServeProcess
    door: int  # nginx's port that leads to this host only

    @property
    def http(self) -> str:
        """The host's pages as the visitor's browser reaches them: through nginx."""
        return f"http://{HOST}:{self.door}"

    @property
    def ws(self) -> str:
        return f"ws://{HOST}:{self.door}/ws?project={TEST_PROJECT}"

    def health(self) -> tuple[int, dict[str, Any]]:
        """The engine's own /healthz (what a load balancer's probe of this host reads)."""
        answer = httpx.get(f"{self.engine.http}/healthz", timeout=30)
        return answer.status_code, answer.json()


@dataclass
class ThreeHosts:
    hosts: list[Host]
    front: int  # nginx in front of all three (the documented upstream)
    db_url: str  # the PostgreSQL database they share

    def next_after(self, host: Host) -> Host:
        return self.hosts[(self.hosts.index(host) + 1) % len(self.hosts)]


def config(db_url: str, redis_url: str, prefix: str, chains: ChainsInfo | None, smtp: LocalSmtpServer, front: int,
           socials: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The one config every host runs (paths relative to each host's folder); the engine's public
    URL is nginx's front port (the social providers' redirect). Without `chains`, the engine's
    default networks (nothing reaches them here)."""
    networks = {"networks": dev_networks(chains.rpc_urls, chains.deployment)} if chains is not None else {}
    return {
        "secret": TEST_SECRET, "analytics": {"mode": "off"},
        "store": {"kind": "redis", "url": redis_url, "prefix": prefix},
        "database": {"url": db_url, "pool_min": 1, "pool_max": 4},
        "projects": {TEST_PROJECT: {"name": "Three hosts", "origins": [TEST_ORIGIN]}},
        **networks,
        "siwx": {"db": "siwx.db", "key_file": "engine.key"},
        "embedded": {"db": "embedded.db", "master_key_file": "master.key",
                     "smtp": {"host": HOST, "port": smtp.port, "tls": "none",
                              "sender": "Wallet <no-reply@modal.test>"},
                     "public_url": f"http://{HOST}:{front}", "socials": socials},
        **extra,
    }


def _snippet(front: int, doors: list[int], engines: list[int]) -> str:
    text = documented(front, engines)
    block = text[text.index("server {"):]  # the documented server block
    for name, door, engine in zip(NAMES, doors, engines):
        text += f"\nupstream modalcore_{name} {{\n    server {HOST}:{engine};\n}}\n"
        text += (block.replace(f"listen {HOST}:{front};", f"listen {HOST}:{door};")
                 .replace("http://modalcore_engines", f"http://modalcore_{name}"))
    return text


@contextlib.contextmanager
def three_hosts(folder: Path, engine_config: dict[str, Any], front: int,
                copies: dict[str, Path] | None = None) -> Iterator[ThreeHosts]:
    """The database upgraded once (`modalcore db upgrade`, as from any host), the three hosts
    started together, nginx in front (on `front`); everything stopped after. `copies`: more
    files each host gets its own copy of (name in its folder: source)."""
    assert main(["db", "upgrade", "--url", engine_config["database"]["url"]]) == 0
    keys = folder / "deploy"
    keys.mkdir()
    (keys / "master.key").write_text(MasterKey.generate().hex())
    load_or_create_key(keys / "engine.key")
    engines: list[ServeProcess] = []
    try:
        for name in NAMES:
            home = folder / f"host-{name}"
            home.mkdir()
            for file in ("master.key", "engine.key"):
                shutil.copy2(keys / file, home / file)
            for name, source in (copies or {}).items():
                shutil.copy2(source, home / name)
            (home / "engine.json").write_text(json.dumps(engine_config))
            engines.append(launch_serve(home, home / "engine.json"))
        for engine in engines:
            engine.wait_healthy()
        doors = [free_port() for _ in NAMES]
        with run_nginx(folder / "nginx", _snippet(front, doors, [e.port for e in engines]), front):
            yield ThreeHosts([Host(n, e, d) for n, e, d in zip(NAMES, engines, doors)], front,
                             engine_config["database"]["url"])
    finally:
        for engine in engines:
            engine.stop()


@contextlib.contextmanager
def world_of(folder: Path, cluster: PostgresProcess, redis_url: str, chains: ChainsInfo, smtp: LocalSmtpServer,
             front: int, provider: DevOidcProvider, copies: dict[str, Path] | None = None,
             **extra: Any) -> Iterator[ThreeHosts]:
    """Three hosts on a new database of `cluster` (started again if a test left it stopped), a
    Redis key prefix of their own, the local provider as Google; `extra` config sections."""
    if cluster.process is None:
        cluster.start()
    socials = {"google": {"issuer": provider.issuer, "client_id": provider.client_id}}
    engine_config = config(cluster.create_database(), redis_url, f"hosts{next(_prefixes)}-{folder.name}:",
                           chains, smtp, front, socials, **extra)
    with three_hosts(folder, engine_config, front, copies) as hosts:
        yield hosts


def rpc(chains: ChainsInfo, method: str, params: list[Any]) -> Any:
    with chains.rpc(31337) as node:
        return node.call(method, params)


def nonce_of(chains: ChainsInfo, address: str) -> int:
    return int(rpc(chains, "eth_getTransactionCount", [address, "pending"]), 16)


@contextlib.asynccontextmanager
async def page(host: Host, before: Client | None = None, opts: dict[str, Any] | None = None
               ) -> AsyncIterator[tuple[Client, httpx.AsyncClient]]:
    """The visitor's page on `host` (through its nginx door); with `before`, the same page
    reconnecting with its resume token (as the renderer does after its socket dropped)."""
    async with Client.open(host.ws, seq=before.seq if before else 0) as client, \
            httpx.AsyncClient(base_url=host.http, timeout=STEP_S) as http:
        if before is None:
            await client.join(opts=opts or OPTS)
            await client.intent("host", "open", {})
        else:
            client.carry_on(before)
            frames = await client.join(resume=before.resume, last=before.last, opts=OPTS)
            assert frames[0]["t"] == "joined" and frames[0]["resumed"] is True, frames[0]
            assert client.session == before.session
        yield client, http


async def sign_in(world: ThreeHosts, smtp: LocalSmtpServer, device: DeviceKey, email: str,
                  asked: Host) -> tuple[Client, str, Host]:
    """The code asked with the socket on `asked`, typed in the sign-in frame served by the next
    host: (the page's client, left closed; the address; the host the code was typed on)."""
    typed = world.next_after(asked)
    async with page(asked) as (client, _):
        code = await submit_email(client, smtp, email)
        async with httpx.AsyncClient(base_url=typed.http, timeout=STEP_S) as other:
            address = await post_code(client, other, code, device)
    return client, address, typed
