"""Moves on the view stack and the transaction stack that may close the modal (behaviour.md §2,
"Stack rules"): going back, and popping a transaction entry with its callbacks.

Above `router` (the stacks as data) and `modal` (closing), so neither imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Cmd
from ..core.evolve import replace
from . import farcaster, modal
from .router import back_to_index, reset

if TYPE_CHECKING:
    from .model import Model, Step


def go_back(model: Model) -> Step:
    """Pop one entry; with one entry left or UnsupportedChain in the history, close instead."""
    state = model.router
    if state.view == farcaster.VIEW:
        return _leave_farcaster(model)
    if len(state.history) > 1 and not state.contains("UnsupportedChain"):
        return replace(model, router=replace(state, history=state.history[:-1])), []
    return modal.close(model)


def _leave_farcaster(model: Model) -> Step:
    """behaviour.md §2: going back from ConnectingFarcaster while not connected clears the Farcaster
    link (the account's farcasterUrl and the channel; its polling stops). The reference product's frame reload and host
    re-sync have no counterpart here: the engine, not a frame, holds the embedded wallet."""
    account = model.accounts.get("eip155")
    connected = account.status == "connected"
    if not connected:
        model = replace(model, embedded=replace(model.embedded, farcaster=None, social="", social_error=None),
                        accounts=model.accounts.with_account("eip155", replace(account, farcaster_url=None)))
    state = model.router
    model, cmds = (replace(model, router=replace(state, history=state.history[:-1])), []) \
        if len(state.history) > 1 else modal.close(model)
    return model, [CancelTimer(farcaster.POLL_TIMER), *cmds] if not connected else cmds


def pop_tx(model: Model, *, cancel: bool = False) -> Step:
    state = model.router
    if not state.tx_stack:
        return model, []
    entry = state.tx_stack[-1]
    model = replace(model, router=replace(state, tx_stack=state.tx_stack[:-1]))
    if cancel:
        return go_back(model)
    cmds: list[Cmd] = []
    if entry.go_back:
        model, cmds = go_back(model)
    elif entry.replace:
        siwe_index = next(
            (i for i, route in enumerate(model.router.history) if route.view == "ConnectingSiwe"), -1
        )
        if siwe_index > 0:
            model = replace(model, router=back_to_index(model.router, siwe_index - 1))
        else:
            model, cmds = modal.close(model, force=True)
            model = replace(model, router=replace(model.router, history=()))
    elif entry.view:
        model = replace(model, router=reset(model.router, entry.view))
    return model, cmds
