"""Sign-in's ways in and out (behaviour.md §4 "SIWX"): the sessions found after a connect, the nonce
that starts signing, and the cancel and failure paths, which end in a disconnect when sign-in is
required (or could not start). A flow (above the slices) because it spans the sign-in slice and
the disconnect flow; signing and verifying stay in `slices/siwx.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import Cmd, Track
from ..core.evolve import replace
from ..core.shape import On, Slice
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Reply
from ..services.domain.handles import SIWX_REVOKE
from ..slices import modal, router, snack
from ..slices.host import HostSignedOut
from ..slices.connecting import wallet_request
from ..slices.siwx import (
    INIT_FAILED,
    PressedCancelSignIn,
    SiwxMessageSigned,
    SiwxNonceFetched,
    SiwxSessionsFetched,
    active_caip,
    origin_parts,
    sign_in_message,
    signing_account,
    solana_sign_request,
    solana_signing_account,
)
from .disconnect import start as disconnect
from .farcaster_siwx import sign_at_once

if TYPE_CHECKING:
    from ..slices.model import Model, Step


CONNECTING_VIEWS = ("ConnectingExternal", "ConnectingFarcaster")


def on_sessions(model: Model, msg: SiwxSessionsFetched, now: int) -> Step:
    if active_caip(model) != msg.key:
        return model, []
    caip = msg.key
    if msg.result is None:
        return _init_failed(model)
    sessions = msg.result.sessions or []
    if sessions:
        siwx = replace(model.siwx, has_session=True, session_address=caip, approved=None)
        model = replace(model, siwx=siwx)
        if model.router.view in CONNECTING_VIEWS:  # the connect that started this is done
            model = replace(model, router=router.reset(model.router, "Account"))
            return modal.close(model, force=True)
        return model, []
    at_once = sign_at_once(model, now)  # the visitor approved this sign-in in Farcaster already
    if at_once is not None:
        return at_once
    model = replace(model, router=router.reset(model.router, "SIWXSignMessage"),
                    modal=replace(model.modal, open=True), siwx=replace(model.siwx, approved=None))
    return model, []


def on_nonce(model: Model, msg: SiwxNonceFetched, now: int) -> Step:
    if model.siwx.signing and solana_signing_account(model) is not None:  # SIWS
        solana = solana_sign_request(model, msg.result.nonce, now) if msg.result is not None else None
        return solana if solana is not None else _init_failed(model)
    if not model.siwx.signing or signing_account(model) is None:
        return model, []
    built = sign_in_message(model, msg.result.nonce, now) if msg.result is not None else None
    if built is None:
        return _init_failed(model)
    _, address, message = built
    account = model.accounts.get("eip155")
    model = replace(model, siwx=replace(model.siwx, message=message))
    model, effect = wallet_request(
        model, account.connector_id or "", "personal_sign",
        ["0x" + message.encode().hex(), address.lower()], SiwxMessageSigned,
    )
    return model, [effect]


def _init_failed(model: Model) -> Step:
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, cmds = snack.show_error(model, INIT_FAILED)
    model, more = disconnect(model)
    return replace(model, router=router.reset(model.router, "Connect")), [*cmds, *more]


def on_cancel(model: Model, msg: PressedCancelSignIn, now: int) -> Step:
    """Cancelling disconnects if sign-in is required, otherwise closes; then resets to Connect."""
    track: list[Cmd] = [Track("CLICK_CANCEL_SIWX", {})]
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, hidden = snack.hide(model)
    if model.siwx.required:
        model, cmds = disconnect(model)
    else:
        model, cmds = modal.close(model, force=True)
    return replace(model, router=router.reset(model.router, "Connect")), [*track, *hidden, *cmds]


class SiwxRevocation(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    revoked: int = 0


@dataclass(frozen=True)
class SiwxRevoked(Reply):
    """The stored sessions of `key` (a CAIP address) were revoked after the host's signOut()."""

    result: SiwxRevocation | None = None


def on_host_sign_out(model: Model, msg: HostSignedOut, now: int) -> Step:
    """The host's `signOut()` (issue 40 item 6): the session's sign-in ends here and in the store
    (the next connect asks to sign again); with `required`, signing out disconnects, as declining
    does. Nothing happens without a sign-in."""
    if not model.siwx.has_session:
        return model, []
    caip = model.siwx.session_address or active_caip(model) or ""
    domain, _ = origin_parts(model.origin)
    model = replace(model, siwx=replace(model.siwx, has_session=False, session_address=None, token=None))
    cmds: list[Cmd] = [Track("SIWX_SIGN_OUT", {})]
    if caip:
        cmds.append(SIWX_REVOKE.call_or_refusal({"address": caip.rsplit(":", 1)[-1], "domain": domain},
                                                SiwxRevoked, caip))
    if model.siwx.required:
        model, more = disconnect(model)
        cmds += more
    return model, cmds


def on_revoked(model: Model, msg: SiwxRevoked, now: int) -> Step:
    return model, []  # the session ended already; a store that failed leaves a session to expire


HANDLERS = (
    On(HostSignedOut, on_host_sign_out),
    On(SiwxRevoked, on_revoked),
    On(SiwxSessionsFetched, on_sessions),
    On(SiwxNonceFetched, on_nonce),
    On(PressedCancelSignIn, on_cancel),
)

SLICE = Slice("signin", HANDLERS)
