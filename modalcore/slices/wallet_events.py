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


def message_for(frame: WalletEvent) -> Msg | None:
    """A message for a well-formed event; None for data of the wrong shape (ignored)."""
    data = frame.data
    if frame.event == "announce":
        try:
            info = AnnouncedWallet.model_validate(data)
        except ValueError:
            return None
        return WalletAnnounced(info.uuid, info.name, info.icon, info.rdns)
    if frame.event == "accountsChanged":
        if not isinstance(data, list) or len(data) > 32 or not all(isinstance(a, str) and len(a) <= 128 for a in data):
            return None
        return WalletAccountsChanged(frame.connector, tuple(data))
    if frame.event == "chainChanged":
        if isinstance(data, int):
            data = hex(data)
        if not isinstance(data, str) or len(data) > 32:
            return None
        return WalletChainChanged(frame.connector, data)
    return WalletDisconnected(frame.connector)
