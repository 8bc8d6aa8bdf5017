"""Sessions for the send and activity tests.

`dev_session` here is the `Harness` of tests/devwallet.py with the local networks carrying their
two tokens. `ChainHarness` is tests/chain_services.py's `RealChainHarness` on that session: it
plays both the browser wallet (a Hardhat node's unlocked dev account) and the engine runtime
(the real services) against real Hardhat nodes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from modalcore.chains.catalog import Network
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.enginetest import Harness
from modalcore.slices.model import Model
from modalcore.wire.frames import AnnouncedWallet, Env

from .. import devwallet
from ..chain_services import RealChainHarness, dev_tokens
from ..devwallet import ADDRESS, DEMO, DEV_WALLET, OTHER, TUSD, WALLET_NODE, dev_settings, local_networks

__all__ = ["ADDRESS", "DEMO", "DEV_WALLET", "OTHER", "TUSD", "WALLET_NODE", "ChainHarness", "dev_session", "local_networks"]


def dev_session(options: dict[str, Any] | None = None, *, wallets: list[AnnouncedWallet] | None = None,
                env: Env | None = None, networks: dict[str, Network] | None = None, now: int = 0) -> Harness:
    """The dev session, with the local networks carrying the dev tokens by default."""
    return devwallet.dev_session(options, wallets=wallets, env=env, now=now,
                                 networks=networks if networks is not None else local_networks())


class ChainHarness(RealChainHarness):
    """The dev session (the host's `options`) on the local networks with the chain's own tokens,
    its wallet a Hardhat node's unlocked account `address`."""

    def __init__(self, info: ChainsInfo, address: str, *, model: Model | None = None, now: int | None = None,
                 options: dict[str, Any] | None = None, **kwargs: Any) -> None:
        settings = dev_settings(options, networks=local_networks(info.rpc_urls, dev_tokens(info)))
        super().__init__(info.rpc_urls, address, model, now=int(time.time() * 1000) if now is None else now,
                         **{**settings, **kwargs})


@pytest.fixture
def driver() -> Harness:
    return dev_session()
