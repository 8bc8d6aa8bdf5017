"""Sign in with Farcaster (issue 33; behaviour.md §2 ConnectingFarcaster): Connect's Farcaster row →
ConnectingFarcaster draws a frame of the engine's own origin (`/embedded/farcaster`,
server/verify_farcaster.py), which opens a channel on the auth relay for its key and draws its
`farcaster://connect` URL inside the frame (a QR code on desktops, an Open Farcaster link on
phones); the route delivers the channel (`FarcasterChannelOpened`) and the engine polls it
(`farcaster.status`, every POLL_MS) until the Farcaster client answers. The service verifies the
answer (EIP-4361 message, custody signature, ID registry) and, when it holds, opens the FID's
embedded key and registers the frame's key for it (issue 27: this browser may approve): the
visitor is connected like the other socials. A refused answer stores nothing and offers Try
again; an expired channel is replaced by a fresh one (a fresh frame). When the host requires
sign-in, the approval signs in too (flows/farcaster_siwx.py).

Why the frame opens the channel: the key registered is the one the channel was opened for, so
the channel and its QR code must come from the engine-origin frame, never from the host page
(which could draw a channel of its own key: that is phishing, as a fake code field is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, StartTimer
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules.addresses import is_evm_address
from ..slices import handoff, router
from ..slices.farcaster import (
    POLL_MS,
    POLL_TIMER,
    VIEW,
    FarcasterChannel,
    FarcasterChannelOpened,
    FarcasterPollDue,
    FarcasterStatusRead,
    PressedRetryFarcaster,
)
from .connect import NAMESPACE
from .farcaster_siwx import approved, ask_nonce, one_approval
from .social_signin import sign_in
from ..services.domain.handles import FARCASTER_STATUS

if TYPE_CHECKING:
    from ..slices.model import Model, Step

STATUS_SERVICE = FARCASTER_STATUS
PROVIDER = "farcaster"
UNREACHABLE = "Farcaster could not be reached"
REFUSED = "The Farcaster sign-in could not be verified"


def _channel(model: Model, channel: FarcasterChannel | None) -> Model:
    return replace(model, embedded=replace(model.embedded, farcaster=channel))


def user_line(display_name: str, username: str, fid: int) -> str:
    """What Account's user chip says of a Farcaster user: "Carol Caster (@carol)", "@carol",
    "Carol Caster", or "FID 2" when the client sent neither."""
    handle = f"@{username}" if username else ""
    if display_name and handle:
        return f"{display_name} ({handle})"
    return display_name or handle or f"FID {fid}"


def open_channel(model: Model, now: int) -> Step:
    """A fresh channel (Connect's row, Try again, or the last one expired): a fresh frame opens it
    (once the session has the nonce of the sign-in the approval will cover, if any)."""
    last = model.embedded.farcaster
    fresh = FarcasterChannel(attempt=(last.attempt if last is not None else 0) + 1, signs_in=one_approval(model))
    model = replace(model, embedded=replace(model.embedded, social=PROVIDER, social_error=None, farcaster=fresh))
    if model.router.view != VIEW:
        model = replace(model, router=router.push(model.router, VIEW, PROVIDER))
    return model, [CancelTimer(POLL_TIMER), *ask_nonce(model, fresh)]


def awaiting_frame(model: Model) -> int | None:
    """The attempt whose frame may open the channel now (ConnectingFarcaster shown, none open,
    the sign-in's nonce known when the approval signs in)."""
    channel = _waiting(model)
    connected = model.accounts.get(NAMESPACE).status == "connected"
    if channel is None or channel.token or connected or (channel.signs_in and not channel.sign_in_nonce):
        return None
    return channel.attempt


def _waiting(model: Model) -> FarcasterChannel | None:
    """The channel being shown, unless the visitor left it (back) or it failed."""
    channel = model.embedded.farcaster
    on_view = model.router.view == VIEW
    return channel if channel is not None and channel.error is None and on_view else None


def _failed(model: Model, error: str) -> Step:
    channel = model.embedded.farcaster or FarcasterChannel()
    return _channel(model, replace(channel, error=error)), [CancelTimer(POLL_TIMER)]


def on_opened(model: Model, msg: FarcasterChannelOpened, now: int) -> Step:
    channel = _waiting(model)
    if channel is None or awaiting_frame(model) != channel.attempt or msg.key != str(channel.attempt):
        return model, []
    if not msg.ok or msg.result is None or (channel.signs_in and msg.result.nonce != channel.sign_in_nonce):
        return _failed(model, UNREACHABLE)
    opened = replace(channel, token=msg.result.channel_token, url=msg.result.url, nonce=msg.result.nonce,
                     frame_key=msg.result.public_key)
    # behaviour.md §3 farcasterUrl: the link being offered (AppKit's setFarcasterUrl), cleared by back
    account = replace(model.accounts.get(NAMESPACE), farcaster_url=opened.url)
    model = replace(_channel(model, opened), accounts=model.accounts.with_account(NAMESPACE, account))
    return model, [StartTimer(POLL_TIMER, POLL_MS, FarcasterPollDue(opened.token))]


def on_poll_due(model: Model, msg: FarcasterPollDue, now: int) -> Step:
    channel = _waiting(model)
    if channel is None or channel.token != msg.token:
        return model, []
    return model, [STATUS_SERVICE.call_or_refusal({"token": channel.token, "nonce": channel.nonce},
                                                   FarcasterStatusRead, key=channel.token)]


def on_status(model: Model, msg: FarcasterStatusRead, now: int) -> Step:
    channel = _waiting(model)
    if channel is None or not channel.token or channel.token != msg.key:
        return model, []
    if not msg.ok or msg.result is None:
        return _failed(model, UNREACHABLE)
    status = msg.result
    if status.state == "pending":
        return model, [StartTimer(POLL_TIMER, POLL_MS, FarcasterPollDue(channel.token))]
    if status.state == "expired":
        return open_channel(model, now)
    if status.state == "refused" or status.fid <= 0 or not is_evm_address(status.address):
        return _failed(model, REFUSED)
    # the avatar and the user chip only: profile_name is the account's name (ENS, the names
    # slice's, which would overwrite anything put there)
    model, cmds = sign_in(model, PROVIDER, str(status.fid), status.address, now,
                          username=user_line(status.display_name, status.username, status.fid), image=status.pfp_url)
    # a phone linked with no account keeps its link if its own frame opened the channel
    model = handoff.adopt(model, channel.frame_key)
    return approved(model, channel), cmds  # signs in at once if no session is found (farcaster_siwx.py)


def on_retry(model: Model, msg: PressedRetryFarcaster, now: int) -> Step:
    if model.router.view != VIEW:
        return model, []
    return open_channel(model, now)


HANDLERS = (
    On(FarcasterChannelOpened, on_opened),
    On(FarcasterPollDue, on_poll_due),
    On(FarcasterStatusRead, on_status),
    On(PressedRetryFarcaster, on_retry),
)

SLICE = Slice("farcaster", HANDLERS)
