"""The NFTs tab tests use the shared sans-IO Driver (through tests/connect/conftest.py)."""

from __future__ import annotations

import pytest

from ..connect.conftest import ADDRESS, OTHER, Driver

__all__ = ["ADDRESS", "OTHER", "Driver"]


@pytest.fixture
def driver() -> Driver:
    return Driver()
