"""The connect-flow tests drive a `Harness` on the dev chains with the Dev Wallet announced."""

from __future__ import annotations

import pytest

from modalcore.enginetest import Harness

from ..devwallet import ADDRESS, DEV_WALLET, OTHER, WALLET_NODE, dev_session

__all__ = ["ADDRESS", "DEV_WALLET", "OTHER", "WALLET_NODE", "dev_session"]


@pytest.fixture
def driver() -> Harness:
    return dev_session()
