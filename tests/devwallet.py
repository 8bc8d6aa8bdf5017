"""The dev wallet and dev chains the flow tests run sessions with (Hardhat's accounts, chains
31337 and 31338), `dev_session`, the `Harness` they start from, and `press_dev_wallet`, the same
first steps on a real engine's socket."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from modalcore.chains.catalog import Network, Token, catalog
from modalcore.core.shape import Table
from modalcore.enginetest import HARNESS_TABLE, Harness
from modalcore.server.config import dev_networks, parse_config
from modalcore.wire.frames import AnnouncedWallet, Env
from modalcore_testing import Client

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
DEV_WALLET = AnnouncedWallet(uuid="uuid-1", name="Dev Wallet", icon="data:x", rdns="dev.modalcore.devwallet")
WALLET_NODE = "connect/wallet/dev.modalcore.devwallet"
CONNECTOR = DEV_WALLET.uuid
DEV_CHAINS = ["eip155:31337", "eip155:31338"]
# the dev tokens at the addresses the deployment gives them on a fresh chain (fixtures/chain)
DEMO = Token("0x5FbDB2315678afecb367f032d93F642f64180aa3", "DEMO", "Demo Token", 18, price=2.0)
TUSD = Token("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", "TUSD", "Test USD", 6, price=1.0)


def local_networks(rpc_urls: Mapping[int, str] | None = None, tokens: tuple[Token, ...] = (DEMO, TUSD),
                   native_price: float | None = None) -> dict[str, Network]:
    """The catalog, with the two local chains carrying `tokens` (and their RPC urls, and the
    native currency's USD price)."""
    known = catalog()
    overrides = []
    for chain_id in (31337, 31338):
        network = known[f"eip155:{chain_id}"]
        urls = (rpc_urls[chain_id],) if rpc_urls and chain_id in rpc_urls else network.rpc_urls
        overrides.append(replace(network, rpc_urls=urls, tokens=tokens, native_price=native_price))
    return catalog(overrides)


def dev_settings(options: Mapping[str, Any] | None = None, *, wallets: list[AnnouncedWallet] | None = None,
                 env: Env | None = None, networks: Mapping[str, Network] | None = None) -> dict[str, Any]:
    """`Harness` keywords for a session on the dev chains (and the host's `options`), with the
    Dev Wallet announced."""
    return {
        "session_id": "s1", "token": "token", "origin": "http://localhost:1", "project": "demo",
        "options": {"networks": DEV_CHAINS, **(options or {})},
        "wallets": [w.model_dump() for w in (wallets if wallets is not None else [DEV_WALLET])],
        "env": env.model_dump() if env is not None else None, "known_networks": networks,
    }


def dev_session(options: Mapping[str, Any] | None = None, *, wallets: list[AnnouncedWallet] | None = None,
                env: Env | None = None, networks: Mapping[str, Network] | None = None, now: int = 0,
                table: Table = HARNESS_TABLE) -> Harness:
    """A session on the dev chains (and the host's `options`), with the Dev Wallet announced."""
    return Harness(now=now, table=table, **dev_settings(options, wallets=wallets, env=env, networks=networks))


def chain_networks(rpc_urls: dict[int, str], deployment: dict[str, Any]) -> dict[str, Network]:
    """The engine's networks for running dev chains, as an operator config would give them."""
    return parse_config({"networks": dev_networks(rpc_urls, deployment)}).known_networks()


async def press_dev_wallet(client: Client) -> dict[str, Any]:
    """Join with the Dev Wallet announced, open, press it; the wallet request it asks (an effect)."""
    await client.join(wallets=[DEV_WALLET.model_dump(mode="json")],
                      opts={"networks": ["eip155:31337"], "metadata": {"name": "Test dApp"}})
    await client.intent("host", "open")
    await client.recv_until(lambda f: f["t"] == "host_event")
    await client.intent(WALLET_NODE, "press")
    frames = await client.recv_until(lambda f: f["t"] == "effect")
    return frames[-1]
