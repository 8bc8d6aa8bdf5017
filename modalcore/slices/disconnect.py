"""Disconnect (SPEC §4): one chain or all, bounded at 3000 ms, failures aggregated."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Cmd, EffectReply, StartTimer, Track
from ..core.msg import Msg
from ..core.shape import Handler, Slice
from ..rules.rpc_errors import classify
from . import modal, router, snack
from .balances import BalancesState
from .connecting import ConnectionState, wallet_request
from .embedded import EmbeddedState
from .host import HostDisconnected
from ..rules import texts

if TYPE_CHECKING:
    from .model import Model, Step

DISCONNECT_BOUND_MS = 3000
# A wallet that has no permission to revoke has nothing to undo: not a failure.
NOTHING_TO_REVOKE = (4200, -32601, -32004, 4100)


@dataclass(frozen=True)
class DisconnectState:
    pending: tuple[str, ...] = ()  # namespaces still waiting for their wallet
    failures: tuple[str, ...] = ()  # 'Failed to disconnect chain {chain}: ...'


@dataclass(frozen=True)
class PressedDisconnect(Msg):
    pass


@dataclass(frozen=True)
class DisconnectBoundReached(Msg):
    pass


def cleared(model: Model, namespaces: tuple[str, ...] | None = None) -> Model:
    """Account state of the namespaces back to disconnected; stored login data gone."""
    targets = namespaces if namespaces is not None else tuple(ns for ns, _ in model.accounts.by_namespace)
    accounts = model.accounts
    for namespace in targets:
        accounts = accounts.cleared(namespace)
    networks = replace(model.networks, unsupported=None)
    model = replace(model, siwx=model.siwx.forgotten())
    return replace(model, accounts=accounts, networks=networks, connection=ConnectionState(),
                   balances=BalancesState(), disconnecting=DisconnectState(),
                   embedded=EmbeddedState(email_offered=model.embedded.email_offered,
                                          socials=model.embedded.socials))


def start(model: Model, namespace: str | None = None) -> Step:
    """Disconnect one namespace, or every connected one."""
    connected = [
        (ns, account) for ns, account in model.accounts.by_namespace
        if account.status != "disconnected" and (namespace is None or ns == namespace)
    ]
    if not connected:
        return _finish(model)
    cmds: list[Cmd] = []
    pending: list[str] = []
    for ns, account in connected:
        if account.connector_id and model.connectors.get(account.connector_id):
            model, effect = wallet_request(
                model, account.connector_id, "wallet_revokePermissions", [{"eth_accounts": {}}],
                PermissionsRevokeAnswered, ns, timeout_ms=DISCONNECT_BOUND_MS,
            )
            cmds.append(effect)
            pending.append(ns)
    model = replace(model, disconnecting=DisconnectState(pending=tuple(pending)))
    if not pending:
        return _finish(model)
    cmds.append(StartTimer("disconnect-bound", DISCONNECT_BOUND_MS, DisconnectBoundReached()))
    return model, cmds


@dataclass(frozen=True)
class PermissionsRevokeAnswered(EffectReply):
    """The wallet answered wallet_revokePermissions (`key`: the namespace)."""


def on_settled(model: Model, msg: PermissionsRevokeAnswered, now: int) -> Step:
    namespace = msg.key
    state = model.disconnecting
    if namespace not in state.pending:
        return model, []
    failures = state.failures
    if not msg.ok and msg.error_code not in NOTHING_TO_REVOKE:
        reason = classify(msg.error_code, msg.error_message).message
        failures = (*failures, texts.failed_to_disconnect_chain(namespace, reason))
    pending = tuple(ns for ns in state.pending if ns != namespace)
    model = replace(model, disconnecting=DisconnectState(pending=pending, failures=failures))
    if pending:
        return model, []
    model, cmds = _finish(model)
    return model, [CancelTimer("disconnect-bound"), *cmds]


def on_bound_reached(model: Model, msg: DisconnectBoundReached, now: int) -> Step:
    state = model.disconnecting
    if not state.pending:
        return model, []
    failures = (*state.failures, *(texts.failed_to_disconnect_chain(ns, "timeout") for ns in state.pending))
    model = replace(model, disconnecting=DisconnectState(failures=failures))
    return _finish(model)


def _finish(model: Model) -> Step:
    failures = model.disconnecting.failures
    model = cleared(model)
    model = replace(model, router=router.reset(model.router, "Connect"))
    model, cmds = modal.close(model, force=True)
    if not failures:
        return model, cmds
    message = texts.FAILED_TO_DISCONNECT
    model, more = snack.show_error(model, message)
    track = Track("DISCONNECT_ERROR", {"message": message, "errors": list(failures)})
    return model, [*cmds, *more, track]


def on_pressed(model: Model, msg: PressedDisconnect | HostDisconnected, now: int) -> Step:
    return start(model)


HANDLERS: dict[type[Msg], Handler] = {
    PermissionsRevokeAnswered: on_settled,
    PressedDisconnect: on_pressed,
    HostDisconnected: on_pressed,
    DisconnectBoundReached: on_bound_reached,
}

SLICE = Slice("disconnect", HANDLERS)
