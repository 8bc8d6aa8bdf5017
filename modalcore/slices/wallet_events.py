"""Wallet events forwarded by the renderer's bridge, as messages."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.msg import Msg
from ..wire.frames import AnnouncedWallet, WalletEvent


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


def message_for(frame: WalletEvent) -> Msg:
    """The message for a wallet event (its data was validated at the socket edge,
    `wire/frames.WalletEvent.payload`)."""
    data = frame.payload
    if isinstance(data, AnnouncedWallet):
        return WalletAnnounced(data.uuid, data.name, data.icon, data.rdns, tuple(data.namespaces))
    if isinstance(data, tuple):
        return WalletAccountsChanged(frame.connector, data)
    if isinstance(data, str):
        return WalletChainChanged(frame.connector, data)
    return WalletDisconnected(frame.connector)
