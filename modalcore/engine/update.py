"""`update(model, msg, now, table) -> (model, commands)`: the table the engine assembles from
its slices and flows (one list, in order), and the function that applies it.

A message no slice handles is logged and leaves the model as it was. Tests build their own
tables (`Table.of(*SLICES, their_slice)`) and never add to this one.
"""

from __future__ import annotations

import logging

from ..flows import (approval, assets, calls, connect, disconnect, embedded, farcaster, farcaster_siwx, hostrpc, reattach,
                     signin, simulation, smart_account, social, solana_connect, walletconnect)
from ..slices import (
    account_ui,
    alerts,
    balances,
    connectors,
    directory,
    doctor,
    handoff,
    history,
    modal,
    names,
    navigation,
    nfts,
    onramp,
    register_name,
    send,
    siwx,
    snack,
    solana_send,
    swap,
    switching,
    theme,
)
from ..slices.model import Model, Step
from ..core.msg import Msg
from ..core.shape import Slice, Table
from .doctor import with_diagnosis

log = logging.getLogger(__name__)

# Observers run in this order (the directory before the NFTs tab).
SLICES: tuple[Slice, ...] = (
    account_ui.SLICE,
    alerts.SLICE,
    balances.SLICE,
    connectors.SLICE,
    directory.SLICE,
    doctor.SLICE,
    handoff.SLICE,
    history.SLICE,
    modal.SLICE,
    names.SLICE,
    navigation.SLICE,
    nfts.SLICE,
    onramp.SLICE,
    register_name.SLICE,
    send.SLICE,
    siwx.SLICE,
    snack.SLICE,
    solana_send.SLICE,
    swap.SLICE,
    switching.SLICE,
    theme.SLICE,
)
FLOWS: tuple[Slice, ...] = (connect.SLICE, disconnect.SLICE, embedded.SLICE, social.SLICE, approval.SLICE, assets.SLICE, calls.SLICE,
                            hostrpc.SLICE, reattach.SLICE, signin.SLICE, walletconnect.SLICE, solana_connect.SLICE,
                            farcaster.SLICE, farcaster_siwx.SLICE, smart_account.SLICE, simulation.SLICE)

ENGINE = Table.of(*SLICES, *FLOWS)


def refusal(model: Model, msg: Msg, table: Table = ENGINE) -> str | None:
    """Why `msg`, a client's input, must not be applied to `model`; None when it may. Slices bound
    here what accumulates across inputs (`Slice.guards`; rules/limits.py; PROTOCOL.md, "Bounds")."""
    guard = table.guards.get(type(msg))
    return guard(model, msg) if guard is not None else None


def update(model: Model, msg: Msg, now: int, table: Table = ENGINE) -> Step:
    step = table.route(model, msg, now)
    if step is None:
        log.warning("no slice handles %s", type(msg).__name__)
        return model, []
    after, cmds = step
    for observe in table.observers:
        after, more = observe(model, after, now)
        if more:
            cmds = [*cmds, *more]
    return with_diagnosis(model, msg, after, now), cmds
