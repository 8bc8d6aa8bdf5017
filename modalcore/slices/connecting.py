"""The connection slice: its state, its messages, and the one way a slice asks the wallet something.

Low in the slices: connection, switching, siwx and send (and the connect, disconnect and sign-in
flows) all talk to the wallet
through `wallet_request` (an `eip1193` effect on the connector's provider, its answer comes back
as the EffectReply it names), so it lives below them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..chains.catalog import Network
import json

from ..core.cmds import Effect, EffectReply
from ..core.evolve import replace
from ..core.msg import Msg
from ..rules.embedded import AUTH_CONNECTOR_ID
from ..wire.frames import AnnouncedWallet
from .embedded import EMBEDDED_EFFECT, EmbeddedRequest
from .options import HostOptions

if TYPE_CHECKING:
    from .model import Model

CONNECT_TIMEOUT_MS = 120_000


@dataclass(frozen=True)
class ConnectionState:
    connecting: str | None = None  # connector id being connected or re-synced
    error: str | None = None  # what ConnectingExternal shows after a failure
    pending_accounts: tuple[str, ...] = ()



def wallet_request(model: Model, connector_id: str, method: str, params: object, reply: type[EffectReply],
                   key: str = "", timeout_ms: int = CONNECT_TIMEOUT_MS) -> tuple[Model, Effect]:
    """An `eip1193` request to the connector's provider; its answer comes back as `reply` for
    `key` (the connector id when no key is given). For WalletConnect the engine's runtime runs it
    on the visitor's WalletConnect session instead of the browser (an effect of kind
    `walletconnect`, core/cmds.RUNTIME_EFFECT_KINDS)."""
    connector = model.connectors.get(connector_id)
    ref = connector.ref if connector else connector_id
    model, eid = model.next_id("e")
    if connector_id == AUTH_CONNECTOR_ID and model.embedded.identity:
        # The engine is the embedded wallet of the signed-in visitor: the request stays here (the
        # session never sends an "embedded" effect to the page, whatever wallets the page
        # announces); the approval flow answers or asks for approval.
        request = EmbeddedRequest(eid=eid, method=method, params=json.dumps(params),
                                  key=key or connector_id, chain=model.networks.active or "")
        model = replace(model, embedded=replace(model.embedded, request=request))
        return model, Effect(eid=eid, kind=EMBEDDED_EFFECT, req={"method": method}, reply=reply,
                             key=key or connector_id, timeout_ms=timeout_ms)
    if connector is not None and connector.type == "WALLET_CONNECT":
        # the engine's WalletConnect session answers, over the relay (runtime/walletconnect.py)
        return model, Effect(eid=eid, kind="walletconnect", req={"method": method, "params": params},
                             reply=reply, key=key or connector_id, timeout_ms=timeout_ms)
    effect = Effect(eid=eid, kind="eip1193",
                    req={"connector": ref, "method": method, "params": params},
                    reply=reply, key=key or connector_id, timeout_ms=timeout_ms)
    return model, effect


def held_by_engine(model: Model, eid: str) -> bool:
    """The embedded wallet holds the wallet request `eid` (the engine is that wallet): a page
    reload does not lose it, its approval frame shows again (issue 38)."""
    request = model.embedded.request
    return request is not None and request.eid == eid


@dataclass(frozen=True)
class PressedWallet(Msg):
    connector_id: str


@dataclass(frozen=True)
class PressedRetryConnect(Msg):
    pass


@dataclass(frozen=True)
class Reattached(Msg):
    """A socket attached to an existing session; `reloaded` when the page was loaded anew."""

    wallets: tuple[AnnouncedWallet, ...]
    reloaded: bool
    options: HostOptions | None = None  # the reloaded page's createModal options
    networks: tuple[Network, ...] = ()  # the networks those options name, from the catalog


@dataclass(frozen=True)
class Restored(Msg):
    """The session was loaded from the store into a process that was not running it (a restart
    after a kill or a crash, a worker takeover, a graceful stop): the service calls its previous
    process had in flight are gone, their answers will never come (issue 38)."""


def solana_request(model: Model, connector_id: str, method: str, params: dict[str, object],
                   reply: type[EffectReply], key: str = "",
                   timeout_ms: int = CONNECT_TIMEOUT_MS) -> tuple[Model, Effect]:
    """A `solana` effect: a Wallet Standard feature (`standard:connect`, `solana:signTransaction`,
    `solana:signMessage`) of the connector's wallet (PROTOCOL.md, effect kinds)."""
    connector = model.connectors.get(connector_id)
    ref = connector.ref if connector else connector_id
    model, eid = model.next_id("e")
    effect = Effect(eid=eid, kind="solana",
                    req={"connector": ref, "method": method, "params": params},
                    reply=reply, key=key or connector_id, timeout_ms=timeout_ms)
    return model, effect
