"""Connecting a browser wallet (SPEC §4; EIP-1193 through `eip1193` effects)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..engine.cmds import Effect
from ..engine.msg import Msg
from . import router

if TYPE_CHECKING:
    from ..engine.model import Model, Step

CONNECT_TIMEOUT_MS = 120_000


@dataclass(frozen=True)
class ConnectionState:
    connecting: str | None = None  # connector id being connected
    error: str | None = None  # what the ConnectingExternal view shows after a failure


@dataclass(frozen=True)
class PressedWallet(Msg):
    connector_id: str


@dataclass(frozen=True)
class PressedRetryConnect(Msg):
    pass


def request_accounts(model: Model, connector_id: str) -> Step:
    model, eid = model.next_id("e")
    effect = Effect(
        eid=eid,
        kind="eip1193",
        req={"connector": connector_id, "method": "eth_requestAccounts", "params": []},
        purpose="connect:accounts",
        timeout_ms=CONNECT_TIMEOUT_MS,
    )
    connection = ConnectionState(connecting=connector_id, error=None)
    return replace(model, connection=connection), [effect]


def on_pressed_wallet(model: Model, msg: PressedWallet, now: int) -> Step:
    if model.connectors.get(msg.connector_id) is None:
        return model, []
    model = replace(model, router=router.push(model.router, "ConnectingExternal", msg.connector_id))
    return request_accounts(model, msg.connector_id)


def on_retry(model: Model, msg: PressedRetryConnect, now: int) -> Step:
    connector_id = model.router.param
    if model.router.view != "ConnectingExternal" or model.connectors.get(connector_id) is None:
        return model, []
    return request_accounts(model, connector_id)


HANDLERS = {PressedWallet: on_pressed_wallet, PressedRetryConnect: on_retry}
