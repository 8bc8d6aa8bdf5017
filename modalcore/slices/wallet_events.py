"""Wallet events forwarded by the renderer's bridge, as messages."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from ..core.msg import Msg
from ..rules import limits as L
from ..wire.frames import AnnouncedWallet, FrameError, WalletEvent


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


def message_for(frame: WalletEvent) -> Msg:
    """The message for a well-formed event; `FrameError` (malformed, with the reason) for data of
    the wrong shape or over its bounds (PROTOCOL.md, "Bounds")."""
    data = frame.data
    if frame.event == "announce":
        try:
            info = AnnouncedWallet.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "data"
            raise FrameError("malformed", f"announce: {where}: {first['msg']}") from error
        return WalletAnnounced(info.uuid, info.name, info.icon, info.rdns)
    if frame.event == "accountsChanged":
        if not isinstance(data, list) or not all(isinstance(a, str) for a in data):
            raise FrameError("malformed", "accountsChanged: data is a list of addresses")
        if len(data) > L.MAX_WALLET_ACCOUNTS or any(len(a) > L.WALLET_ACCOUNT_CHARS for a in data):
            raise FrameError("malformed", f"accountsChanged: at most {L.MAX_WALLET_ACCOUNTS} addresses "
                                          f"of at most {L.WALLET_ACCOUNT_CHARS} characters")
        return WalletAccountsChanged(frame.connector, tuple(data))
    if frame.event == "chainChanged":
        if isinstance(data, int) and not isinstance(data, bool):
            data = hex(data)
        if not isinstance(data, str) or len(data) > L.WALLET_CHAIN_CHARS:
            raise FrameError("malformed", f"chainChanged: data is a chain id of at most "
                                          f"{L.WALLET_CHAIN_CHARS} characters")
        return WalletChainChanged(frame.connector, data)
    return WalletDisconnected(frame.connector)
