"""Wallet events forwarded by the renderer's bridge, as messages (decoded from their frames by
`engine/decode.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.msg import Msg


@dataclass(frozen=True)
class WalletAnnounced(Msg):
    uuid: str
    name: str
    icon: str
    rdns: str
    namespaces: tuple[str, ...] = ("eip155",)


@dataclass(frozen=True)
class WalletAccountsChanged(Msg):
    connector: str
    accounts: tuple[str, ...]


@dataclass(frozen=True)
class WalletChainChanged(Msg):
    connector: str
    chain_id: str


@dataclass(frozen=True)
class WalletDisconnected(Msg):
    connector: str

