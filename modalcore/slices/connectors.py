"""Connectors: wallets the visitor's browser announced (SPEC §3 Connector)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from .wallet_events import WalletAnnounced

if TYPE_CHECKING:
    from ..engine.model import Model, Step

ConnectorType = Literal["MULTI_CHAIN", "AUTH", "ANNOUNCED", "WALLET_CONNECT", "INJECTED", "EXTERNAL"]
MAX_CONNECTORS = 32


@dataclass(frozen=True)
class Connector:
    id: str  # the EIP-6963 uuid, or "injected"
    name: str
    type: ConnectorType
    chain: str = "eip155"
    image_url: str = ""
    rdns: str = ""


@dataclass(frozen=True)
class ConnectorsState:
    items: tuple[Connector, ...] = ()
    recent: tuple[str, ...] = ()  # connector ids, newest first, at most 2

    def get(self, connector_id: str) -> Connector | None:
        return next((c for c in self.items if c.id == connector_id), None)


def connector_from_announcement(uuid: str, name: str, icon: str, rdns: str) -> Connector:
    kind: ConnectorType = "INJECTED" if uuid == "injected" else "ANNOUNCED"
    return Connector(id=uuid, name=name or "Browser Wallet", type=kind, image_url=icon, rdns=rdns)


def add(state: ConnectorsState, connector: Connector) -> ConnectorsState:
    if state.get(connector.id) is not None or len(state.items) >= MAX_CONNECTORS:
        return state
    items = state.items
    if connector.type == "ANNOUNCED":
        # a provider announced through EIP-6963 replaces the legacy injected stand-in
        items = tuple(c for c in items if c.type != "INJECTED")
    elif any(c.type == "ANNOUNCED" for c in items):
        return state
    return replace(state, items=(*items, connector))


def on_announced(model: Model, msg: WalletAnnounced, now: int) -> Step:
    connector = connector_from_announcement(msg.uuid, msg.name, msg.icon, msg.rdns)
    return replace(model, connectors=add(model.connectors, connector)), []


HANDLERS = {WalletAnnounced: on_announced}
