"""The connect-flow tests use the shared sans-IO Driver (tests/driver.py)."""

from __future__ import annotations

import pytest

from ..driver import ADDRESS, DEV_WALLET, OTHER, WALLET_NODE, Driver

__all__ = ["ADDRESS", "DEV_WALLET", "OTHER", "WALLET_NODE", "Driver"]


@pytest.fixture
def driver() -> Driver:
    return Driver()
