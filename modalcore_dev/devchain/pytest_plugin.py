"""Dev chains for tests: `start_chains()` plus ready-made pytest fixtures.

Wire it into a test tree with `pytest_plugins = ["modalcore_dev.devchain.pytest_plugin"]` in the
top-level tests/conftest.py, then use:

- `devchains` (session): both nodes started on random free ports, contracts deployed;
  a `ChainsInfo` (rpc_urls, deployment, nodes, rpc(chain_id)).
- `devchain` (function): the same `ChainsInfo`, with every chain snapshotted before the test
  and reverted after it (evm_snapshot / evm_revert), so tests cannot see each other's txs.
- `aachains` (module): `devchains` with one ERC-4337 bundler (alto) per chain, an `AaChains`.
  The chains are snapshotted before the bundlers start and reverted after they stop: alto
  keeps its executor's nonce in memory, so nothing may revert a chain under it. A module using
  `aachains` must not use `devchain` (its tests see each other's operations: use fresh owners).

Set MODALCORE_DEVCHAIN_RPC="http://127.0.0.1:8545,http://127.0.0.1:8546" to use nodes that
are already running (e.g. from `python -m modalcore_dev.devchain up`) instead of starting new ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from modalcore_dev.devchain.bundler import running_bundlers
from modalcore_dev.devchain.deploy import deploy_all
from modalcore_dev.devchain.nodes import DEFAULT_PORTS, DevNode, free_port, rpc_chain_id, start_nodes, stop_nodes
from modalcore_dev.devchain.rpc import Rpc

RPC_ENV = "MODALCORE_DEVCHAIN_RPC"


@dataclass(frozen=True)
class ChainsInfo:
    """What tests need to talk to the dev chains."""

    rpc_urls: dict[int, str]
    deployment: dict[str, Any]
    nodes: list[DevNode] = field(default_factory=list)

    @property
    def chain_ids(self) -> list[int]:
        return sorted(self.rpc_urls)

    def rpc(self, chain_id: int) -> Rpc:
        """A new JSON-RPC client for one chain (close it, or use it in a `with`)."""
        return Rpc(self.rpc_urls[chain_id])

    def chain(self, chain_id: int) -> dict[str, Any]:
        """The deployment entry of one chain (tokens, eip1271Wallet, accounts, funding)."""
        entry: dict[str, Any] = self.deployment[str(chain_id)]
        return entry

    def token(self, chain_id: int, symbol: str) -> dict[str, Any]:
        for token in self.chain(chain_id)["tokens"]:
            if token["symbol"] == symbol:
                return dict(token)
        raise KeyError(f"no token {symbol} on chain {chain_id}")

    def nft(self, chain_id: int, symbol: str) -> dict[str, Any]:
        """An ERC-721 collection of the deployment (address, name, symbol, owners)."""
        for collection in self.chain(chain_id).get("nfts", []):
            if collection["symbol"] == symbol:
                return dict(collection)
        raise KeyError(f"no NFT collection {symbol} on chain {chain_id}")


def snapshot(rpc_url: str) -> str:
    """evm_snapshot on one chain; returns the snapshot id."""
    with Rpc(rpc_url) as rpc:
        return rpc.snapshot()


def revert(rpc_url: str, snapshot_id: str) -> bool:
    """evm_revert to a snapshot (which is used up: take a new one for the next test)."""
    with Rpc(rpc_url) as rpc:
        return rpc.revert(snapshot_id)


@contextmanager
def isolated(info: ChainsInfo) -> Iterator[ChainsInfo]:
    """Snapshot every chain, run the block, revert every chain."""
    ids = {chain_id: snapshot(url) for chain_id, url in info.rpc_urls.items()}
    try:
        yield info
    finally:
        for chain_id, snapshot_id in ids.items():
            revert(info.rpc_urls[chain_id], snapshot_id)


def _urls_from_env() -> dict[int, str] | None:
    value = os.environ.get(RPC_ENV, "").strip()
    if not value:
        return None
    urls: dict[int, str] = {}
    for url in (u.strip() for u in value.split(",") if u.strip()):
        chain_id = rpc_chain_id(url, timeout=3.0)
        if chain_id is None:
            raise RuntimeError(f"{RPC_ENV}: nothing answers eth_chainId at {url}")
        urls[chain_id] = url
    return urls


@contextmanager
def start_chains(
    ports: Mapping[int, int] | None = None, *, deploy: bool = True
) -> Iterator[ChainsInfo]:
    """Start one Hardhat node per chain id, deploy the contracts, yield, stop the nodes.

    `ports` maps chain id → port; by default both chains (31337, 31338) get random free ports.
    With MODALCORE_DEVCHAIN_RPC set, the running nodes it names are used and left running.
    """
    external = _urls_from_env() if ports is None else None
    if external is not None:
        deployment = deploy_all(external) if deploy else {}
        yield ChainsInfo(rpc_urls=external, deployment=deployment)
        return
    wanted = {cid: free_port() for cid in DEFAULT_PORTS} if ports is None else dict(ports)
    nodes = start_nodes(wanted)
    try:
        urls = {node.chain_id: node.rpc_url for node in nodes}
        deployment = deploy_all(urls) if deploy else {}
        yield ChainsInfo(rpc_urls=urls, deployment=deployment, nodes=nodes)
    finally:
        stop_nodes(nodes)


@pytest.fixture(scope="session")
def devchains() -> Iterator[ChainsInfo]:
    """Both dev chains, started once per test session, contracts deployed."""
    with start_chains() as info:
        yield info


@pytest.fixture
def devchain(devchains: ChainsInfo) -> Iterator[ChainsInfo]:
    """`devchains`, with every chain reverted to its pre-test state afterwards."""
    with isolated(devchains) as info:
        yield info


@dataclass(frozen=True)
class AaChains:
    """The dev chains with a bundler each (`bundler_urls`: chain id → alto's URL)."""

    chains: ChainsInfo
    bundler_urls: dict[int, str]

    def smart_accounts(self, chain_id: int) -> dict[str, Any]:
        """The chain's ERC-4337 contracts (entryPoint, factory, paymaster, paymasterSigner...)."""
        entry: dict[str, Any] = self.chains.chain(chain_id)["smartAccounts"]
        return entry


@pytest.fixture(scope="module")
def aachains(devchains: ChainsInfo) -> Iterator[AaChains]:
    """One alto per dev chain for the module's tests, on chains reverted once they are done."""
    with isolated(devchains) as info, running_bundlers(info.rpc_urls) as urls:
        yield AaChains(info, urls)
