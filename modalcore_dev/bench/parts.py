"""What a bench section runs with: full sizes (`make bench`) or the smoke sizes (the smallest that
still go through the section's path: tests/bench), and the dev chains and bundlers it may share
(the tests hand in their pytest fixtures' ones; `make bench` lets each section start its own)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from modalcore_dev.devchain.bundler import running_bundlers
from modalcore_dev.devchain.pytest_plugin import ChainsInfo, start_chains


class MissingPart(Exception):
    """A section cannot run here: a program it needs is not installed (the message says which and
    how to get it, in one line)."""


def require_program(name: str, how: str) -> None:
    if shutil.which(name) is None:
        raise MissingPart(f"{name} is not installed ({how})")


@dataclass(frozen=True)
class LoadSizes:
    """The load tool's run (`make bench`: LOAD_IDLE, LOAD_ACTIVE, LOAD_RATE, LOAD_SECONDS)."""

    idle: int = 200
    active: int = 100
    rate: float = 1.0
    seconds: float = 10.0
    workers: tuple[int, ...] = (1, 2)


SMOKE_LOAD = LoadSizes(idle=2, active=2, rate=2.0, seconds=1.0, workers=(1,))


@dataclass(frozen=True)
class Parts:
    smoke: bool = False
    chains: ChainsInfo | None = None  # shared dev chains, or None: the section starts its own
    bundlers: Mapping[int, str] | None = None  # shared bundlers (chain id → URL) on `chains`
    load: LoadSizes = field(default_factory=LoadSizes)

    def size(self, full: int, smoke: int = 1) -> int:
        return smoke if self.smoke else full

    @contextmanager
    def dev_chains(self) -> Iterator[ChainsInfo]:
        """The shared dev chains, or both Hardhat nodes started for the section (contracts
        deployed) and stopped after it."""
        if self.chains is not None:
            yield self.chains
            return
        require_program("node", "Node 20 for the Hardhat dev chains; `make deps`")
        with start_chains() as info:
            yield info

    @contextmanager
    def bundler(self, chains: ChainsInfo, chain_id: int = 31337) -> Iterator[str]:
        """An ERC-4337 bundler (alto) on one of `chains`: the shared one, or one started for the
        section."""
        if self.bundlers is not None:
            yield self.bundlers[chain_id]
            return
        with running_bundlers({chain_id: chains.rpc_urls[chain_id]}) as urls:
            yield urls[chain_id]
