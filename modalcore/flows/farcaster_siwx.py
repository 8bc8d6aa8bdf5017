"""One Farcaster approval signs in (issue 33; behaviour.md §4 SIWX): when the host requires sign-in and
the visitor chose Farcaster, the approval in their Farcaster client is their consent to sign in
to this host, so the engine signs the SIWX message with the FID's embedded key without asking
again (the rule and why it is safe: farcaster/one_approval.py, docs/operators/security.md).

- ConnectingFarcaster asks `siwx.nonce` for its attempt first (`FarcasterSignInNonce`); the
  engine-origin frame then opens the channel with the SIWX message's domain and URI (the origin
  verified at the handshake) and that nonce (`binding`, server/verify_farcaster.py).
- The verified answer connects the account (flows/farcaster.py) and leaves `siwx.approved`.
- No stored session found (flows/signin.py): `sign_at_once` builds the SIWX message with that
  nonce, issued now, for the account shown (the key's smart account where the chain has smart
  accounts, issue 32), and asks `farcaster.sign_in`, which signs it only if the approval covers it;
  the signature is verified and stored as every SIWX sign-in is (`siwx.verify`).

Only a message the visitor saw is signed at once: the host's statement must be absent or the one
the Farcaster client shows ("Farcaster Auth"), and it names no resources. Otherwise, or when the
nonce or the signing fails, the visitor signs in in two steps (SIWXSignMessage, then Approve).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import Cmd
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules.embedded import FARCASTER_STATEMENT
from ..slices import router, snack
from ..slices.farcaster import VIEW, FarcasterChannel, FarcasterSignInNonce, FarcasterSignInSigned
from ..slices.siwx import (
    AUTHENTICATING,
    ApprovedInFarcaster,
    MessageFields,
    active_caip,
    message_fields,
    origin_parts,
    sign_in_message,
    verify_call,
)
from ..services.domain.handles import FARCASTER_SIGN_IN, SIWX_NONCE

if TYPE_CHECKING:
    from ..slices.model import Model, Step

SIGN_IN_SERVICE = FARCASTER_SIGN_IN


def one_approval(model: Model) -> bool:
    """The host requires sign-in and its message would say nothing the visitor is not shown in
    their Farcaster client: no statement of the host's but "Farcaster Auth", no resources."""
    options = model.options.siwx
    if options is None or not (model.siwx.enabled and model.siwx.required):
        return False
    return options.statement in (None, FARCASTER_STATEMENT) and not options.resources


def _approved_fields(model: Model) -> MessageFields:
    """The session's message fields with the host's own statement: none unless it set "Farcaster
    Auth" (the engine's default statement is text the visitor was not shown either)."""
    options = model.options.siwx
    return replace(message_fields(model), statement=options.statement if options is not None else None)


def ask_nonce(model: Model, channel: FarcasterChannel) -> list[Cmd]:
    if not channel.signs_in:
        return []
    return [SIWX_NONCE.call(SIWX_NONCE.args(session_key=model.session_id), FarcasterSignInNonce, key=str(channel.attempt))]


def _with_channel(model: Model, channel: FarcasterChannel) -> Model:
    return replace(model, embedded=replace(model.embedded, farcaster=channel))


def on_nonce(model: Model, msg: FarcasterSignInNonce, now: int) -> Step:
    channel = model.embedded.farcaster
    if (channel is None or not channel.signs_in or channel.sign_in_nonce or channel.token
            or msg.key != str(channel.attempt) or model.router.view != VIEW):
        return model, []
    if not msg.ok or msg.result is None:  # no nonce: the approval connects, sign-in takes two steps
        return _with_channel(model, replace(channel, signs_in=False)), []
    return _with_channel(model, replace(channel, sign_in_nonce=msg.result.nonce)), []


def binding(model: Model) -> tuple[str, str, str] | None:
    """(domain, uri, nonce) the channel of the frame shown must carry: the SIWX message's; None:
    the configured domain and siweUri with a fresh nonce."""
    channel = model.embedded.farcaster
    if channel is None or not channel.signs_in or not channel.sign_in_nonce:
        return None
    domain, uri = origin_parts(model.origin)
    return domain, uri, channel.sign_in_nonce


def approved(model: Model, channel: FarcasterChannel) -> Model:
    """The verified answer of `channel` connected the account: the sign-in it covers."""
    if not channel.signs_in or not channel.sign_in_nonce or not channel.token:
        return model
    grant = ApprovedInFarcaster(channel.token, channel.sign_in_nonce)
    return replace(model, siwx=replace(model.siwx, approved=grant))


def sign_at_once(model: Model, now: int) -> Step | None:
    """No stored session: the SIWX message the Farcaster approval covers, issued now, sent to be
    signed by the engine-held key; None when sign-in takes two steps."""
    grant = model.siwx.approved
    if grant is None or model.siwx.signing or not one_approval(model):
        return None
    built = sign_in_message(model, grant.nonce, now, _approved_fields(model))
    caip = active_caip(model)
    if built is None or built[0] != "eip155" or caip is None:
        return None
    message = built[2]
    model = replace(model, siwx=replace(model.siwx, signing=True, message=message, approved=None))
    model, cmds = snack.show_loading(model, AUTHENTICATING)
    return model, [*cmds, SIGN_IN_SERVICE.call_or_refusal({"token": grant.channel, "message": message},
                                                          FarcasterSignInSigned, key=caip)]


def on_signed(model: Model, msg: FarcasterSignInSigned, now: int) -> Step:
    if not model.siwx.signing or model.siwx.message is None or active_caip(model) != msg.key:
        return model, []
    if msg.ok and msg.result is not None:
        return model, [verify_call(model, msg.result.signature)]
    # the approval did not cover it (nothing was signed): the visitor signs in in two steps
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, cmds = snack.hide(model)
    model = replace(model, router=router.reset(model.router, "SIWXSignMessage"),
                    modal=replace(model.modal, open=True))
    return model, cmds


HANDLERS = (
    On(FarcasterSignInNonce, on_nonce),
    On(FarcasterSignInSigned, on_signed),
)

SLICE = Slice("farcaster_siwx", HANDLERS)
