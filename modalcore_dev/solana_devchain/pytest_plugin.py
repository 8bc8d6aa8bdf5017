"""`solana_devchain` (session): the local Solana dev chain in its own process on a free port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from modalcore_dev.solana_devchain.process import SolanaDevchain, running


@pytest.fixture(scope="session")
def solana_devchain() -> Iterator[SolanaDevchain]:
    with running() as chain:
        yield chain
