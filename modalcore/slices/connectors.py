"""Connectors: wallets the visitor's browser announced (behaviour.md §3 Connector).

A connector's `id` is stable across page loads (the wallet's rdns when it has one); `ref` is the
EIP-6963 uuid of this page load, which the renderer's bridge knows the provider by.
"""

from __future__ import annotations

from ..core.shape import Guard, On, Slice

from collections.abc import Iterable
from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING, Literal

from ..rules import limits as L
from ..wire.frames import AnnouncedWallet
from .wallet_events import WalletAnnounced

if TYPE_CHECKING:
    from .model import Model, Step

ConnectorType = Literal["MULTI_CHAIN", "AUTH", "ANNOUNCED", "WALLET_CONNECT", "INJECTED", "EXTERNAL"]
MAX_CONNECTORS = L.MAX_ANNOUNCED_WALLETS
MAX_RECENT = L.MAX_RECENT_WALLETS


@dataclass(frozen=True)
class Connector:
    id: str
    ref: str
    name: str
    type: ConnectorType
    chain: str = "eip155"
    image_url: str = ""
    rdns: str = ""
    namespaces: tuple[str, ...] = ("eip155",)  # what the wallet connects: eip155, solana or both

    def supports(self, namespace: str) -> bool:
        return namespace in self.namespaces


@dataclass(frozen=True)
class ConnectorsState:
    items: tuple[Connector, ...] = ()
    recent: tuple[str, ...] = ()  # connector ids, newest first, at most 2

    def get(self, connector_id: str | None) -> Connector | None:
        return next((c for c in self.items if c.id == connector_id), None)


def connector_from_announcement(uuid: str, name: str, icon: str, rdns: str,
                                namespaces: tuple[str, ...] = ("eip155",)) -> Connector:
    if uuid == "injected":
        return Connector(id="injected", ref="injected", name=name or "Browser Wallet",
                         type="INJECTED", image_url=icon)
    namespaces = tuple(dict.fromkeys(namespaces)) or ("eip155",)
    return Connector(id=rdns or uuid, ref=uuid, name=name or "Browser Wallet", type="ANNOUNCED",
                     chain=namespaces[0], image_url=icon, rdns=rdns, namespaces=namespaces)


def announced(state: ConnectorsState) -> tuple[Connector, ...]:
    """The connectors the browser announced (WalletConnect is the engine's own)."""
    return tuple(c for c in state.items if c.type != "WALLET_CONNECT")


def add(state: ConnectorsState, connector: Connector) -> ConnectorsState:
    existing = state.get(connector.id)
    if existing is not None:
        items = tuple(connector if c.id == connector.id else c for c in state.items)
        return replace(state, items=items)
    if len(announced(state)) >= MAX_CONNECTORS:
        return state
    items = state.items
    if connector.type == "ANNOUNCED":
        if connector.supports("eip155"):
            # a provider announced through EIP-6963 replaces the legacy injected stand-in
            items = tuple(c for c in items if c.type != "INJECTED")
    elif any(c.type == "ANNOUNCED" and c.supports("eip155") for c in items):
        return state
    return replace(state, items=(*items, connector))


WALLET_CONNECT_ID = "walletConnect"
WALLET_CONNECT = Connector(id=WALLET_CONNECT_ID, ref=WALLET_CONNECT_ID, name="WalletConnect",
                           type="WALLET_CONNECT")


def from_wallets(recent: tuple[str, ...], wallets: Iterable[AnnouncedWallet], *,
                 walletconnect: bool = False) -> ConnectorsState:
    """The connectors of a page: WalletConnect (when the host enables it, behaviour.md §1 first in the
    order), then the wallets its browser announced."""
    state = ConnectorsState(items=(WALLET_CONNECT,) if walletconnect else (), recent=recent)
    for wallet in wallets:
        state = add(state, connector_from_announcement(wallet.uuid, wallet.name, wallet.icon, wallet.rdns,
                                                       tuple(wallet.namespaces)))
    return state


def remember_recent(state: ConnectorsState, connector_id: str) -> ConnectorsState:
    """Recent wallets: at most 2, newest first, deduplicated by id."""
    recent = (connector_id, *(r for r in state.recent if r != connector_id))[:MAX_RECENT]
    return replace(state, recent=recent)


def is_installed_wallet(connector: Connector) -> bool:
    """A wallet the browser has (AppKit's injected wallets, less the generic ones)."""
    return (connector.type in ("INJECTED", "ANNOUNCED", "MULTI_CHAIN")
            and connector.name not in ("Browser Wallet", "WalletConnect"))


def ordered(state: ConnectorsState) -> tuple[Connector, ...]:
    """behaviour.md §1 connector order: walletConnect, recent, injected, featured, custom, external,
    recommended (the directory kinds join this list with the wallet directory)."""
    rank = {"WALLET_CONNECT": 0, "INJECTED": 2, "ANNOUNCED": 2, "MULTI_CHAIN": 2, "EXTERNAL": 5, "AUTH": 6}

    def key(connector: Connector) -> tuple[int, int]:
        if connector.id in state.recent:
            return (1, state.recent.index(connector.id))
        return (rank.get(connector.type, 6), 0)

    return tuple(sorted(state.items, key=key))


def on_announced(model: Model, msg: WalletAnnounced, now: int) -> Step:
    connector = connector_from_announcement(msg.uuid, msg.name, msg.icon, msg.rdns, msg.namespaces)
    return replace(model, connectors=add(model.connectors, connector)), []


def refuse_announcement(model: Model, msg: WalletAnnounced) -> str | None:
    """Announcements accumulate over a page's life: a wallet that is not known yet is refused once
    the session holds MAX_CONNECTORS (PROTOCOL.md, "Bounds")."""
    connector = connector_from_announcement(msg.uuid, msg.name, msg.icon, msg.rdns, msg.namespaces)
    items = announced(model.connectors)
    if model.connectors.get(connector.id) is None and len(items) >= MAX_CONNECTORS:
        return f"announce: at most {MAX_CONNECTORS} wallets in a session"
    icons = sum(len(c.image_url) for c in items if c.id != connector.id) + len(connector.image_url)
    if icons > L.MAX_ANNOUNCED_ICON_CHARS:
        return f"announce: the wallets' icons hold at most {L.MAX_ANNOUNCED_ICON_CHARS} characters in a session"
    return None


HANDLERS = (On(WalletAnnounced, on_announced),)
GUARDS = (Guard(WalletAnnounced, refuse_announcement),)

SLICE = Slice("connectors", HANDLERS, guards=GUARDS)


def connect_method_order(
    configured: tuple[str, ...] | None, wallet_detected: bool
) -> tuple[str, ...]:
    """behaviour.md §1: email, social, wallet by default; wallet, email, social when an installed or
    injected wallet is detected, unless the host configured an order."""
    if configured:
        return configured
    if wallet_detected:
        return ("wallet", "email", "social")
    return ("email", "social", "wallet")
