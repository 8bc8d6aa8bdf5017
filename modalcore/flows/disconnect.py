"""Disconnect (behaviour.md §4): one chain or all, bounded at 3000 ms, failures aggregated.

A flow (above the slices) because it spans them: the wallets' permissions, every account, the
router, the modal, the snack; the sign-in flow's cancel and failure paths end in it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Cmd, EffectReply, StartTimer, Track
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules import texts
from ..rules.rpc_errors import classify
from ..slices import modal, router, snack
from ..slices.connecting import wallet_request
from ..slices.disconnect import DisconnectState, cleared
from ..slices.host import HostDisconnected

if TYPE_CHECKING:
    from ..slices.model import Model, Step

DISCONNECT_BOUND_MS = 3000
# A wallet that has no permission to revoke has nothing to undo: not a failure.
NOTHING_TO_REVOKE = (4200, -32601, -32004, 4100)


@dataclass(frozen=True)
class PressedDisconnect(Msg):
    pass


@dataclass(frozen=True)
class DisconnectBoundReached(Msg):
    pass


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


HANDLERS = (
    On(PermissionsRevokeAnswered, on_settled),
    On(PressedDisconnect, on_pressed),
    On(HostDisconnected, on_pressed),
    On(DisconnectBoundReached, on_bound_reached),
)

SLICE = Slice("disconnect", HANDLERS)
