"""The NFTs tab tests drive a `Harness` on the dev chains (tests/devwallet.py)."""

from __future__ import annotations

import pytest

from modalcore.enginetest import Harness

from ..devwallet import ADDRESS, OTHER, dev_session

__all__ = ["ADDRESS", "OTHER", "dev_session"]


@pytest.fixture
def driver() -> Harness:
    return dev_session()
