"""Sending to a name (behaviour.md §3 receiverProfileName, §7 name lookup, §9 names eip155 only, ENS 5
minutes): a receiver typed as a name (`alice.eth`, `satoshi.reown.id`) is resolved by the engine
(service `address_of`: the engine's registry for its suffix, else the chain's ENS) after a pause
in typing; the form shows the address it resolved to, the preview names both, and the
transaction goes to that address. A name that resolves to nothing is refused in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import CancelTimer, Cmd, Reply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..rules.addresses import checksum
from ..rules.names import ERROR_RESOLVING, NAME_NAMESPACES, looks_like_name, no_address_for
from . import names
from .send_form import ChangedSendReceiver, FeeEstimate, on_receiver as on_receiver_text, with_send
from ..services.domain.handles import ADDRESS_OF

if TYPE_CHECKING:
    from .model import Model, Step

DEBOUNCE_MS = 300
TIMER = "send.resolve"
RESOLVING = "Resolving name"


class AddressFound(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    name: str
    address: str | None = None


@dataclass(frozen=True)
class ReceiverNameDebounced(Msg):
    name: str


@dataclass(frozen=True)
class ReceiverNameResolved(Reply):
    """The address of the name `key` (lower-cased) came back (None: it has none)."""

    result: AddressFound | None = None


def _resolved(model: Model, name: str, address: str | None) -> Model:
    if address is None:
        return with_send(model, resolving=False, lookup_failed=False, receiver_address=None,
                         receiver_profile_name=None, error=no_address_for(name), fee=FeeEstimate())
    return with_send(model, resolving=False, lookup_failed=False, receiver_address=checksum(address),
                     receiver_profile_name=name, error=None, fee=FeeEstimate())


def on_receiver(model: Model, msg: ChangedSendReceiver, now: int) -> Step:
    model, cmds = on_receiver_text(model, msg, now)
    model = with_send(model, receiver_address=None, resolving=False, lookup_failed=False)
    name = model.send.receiver.lower()
    network = model.networks.active_network
    if not looks_like_name(name) or network is None or network.namespace not in NAME_NAMESPACES:
        return model, [*cmds, CancelTimer(TIMER)]
    known = names.known_address(model, name, now)
    if known is not None:
        return _resolved(model, name, known.value), [*cmds, CancelTimer(TIMER)]
    more: list[Cmd] = [StartTimer(TIMER, DEBOUNCE_MS, ReceiverNameDebounced(name))]
    return with_send(model, resolving=True), [*cmds, *more]


def on_debounced(model: Model, msg: ReceiverNameDebounced, now: int) -> Step:
    network = model.networks.active_network
    if msg.name != model.send.receiver.lower() or not model.send.resolving or network is None:
        return model, []
    args = {"chain_id": int(network.reference), "rpc_url": network.rpc_urls[0] if network.rpc_urls else "",
            "registry": network.ens_registry, "name": msg.name}
    return model, [ADDRESS_OF.call_or_refusal(args, ReceiverNameResolved, msg.name)]


def on_resolved(model: Model, msg: ReceiverNameResolved, now: int) -> Step:
    if msg.key != model.send.receiver.lower() or not model.send.resolving:
        return model, []  # an answer for what the visitor typed before
    if not msg.ok or msg.result is None:
        return with_send(model, resolving=False, lookup_failed=True, receiver_address=None, error=ERROR_RESOLVING), []
    address = msg.result.address
    model = replace(model, names=names.remember_address(model, msg.key, address, now))
    return _resolved(model, msg.key, address), []
