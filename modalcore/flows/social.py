"""Social sign-in (issue 15 §2; behaviour.md §1 socials, §5 provider check): the provider's button on
Connect opens the engine's window page in the click (its `popup` prop, issue 39) and leads to
ConnectingSocial, which draws a frame of the engine's own origin (`/embedded/social`,
server/verify.py) that takes that window, or opens one with its own "Continue with …", and
begins the sign-in there (state, nonce, S256 PKCE) → the provider redirects to the engine's
callback, which verifies everything and asks the frame to confirm with its key (issue 27: the
popup reports to the frame, not to the host page) → the frame's key is registered and
`SocialSignedIn` is delivered → connected with the auth connector.

Farcaster (issue 33) is offered when the engine has a [embedded.farcaster] config: its button
opens ConnectingFarcaster (`flows/farcaster.py`), not a popup.

On Connect the offered socials are laid out as AppKit's w3m-social-login-widget does
(`social_layout`): the first as a wide "Continue with …" button, the rest as a compact row of
marks; more than six offered, the row holds four marks and "…", which leads to All Socials.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import embedded as rules
from ..rules.addresses import is_evm_address
from ..slices import handoff, router
from ..slices.embedded import (
    PressedSocial,
    SocialFailed,
    SocialSignedIn,
)
from ..slices.directory_wallets import socials as visible_socials
from . import farcaster
from .social_signin import sign_in

if TYPE_CHECKING:
    from ..slices.model import Model, Step

SOCIAL_VIEW = "ConnectingSocial"
NAMES = {"google": "Google", "x": "X", "discord": "Discord", "github": "GitHub", "apple": "Apple",
         "facebook": "Facebook", "farcaster": "Farcaster"}
FARCASTER = "farcaster"


def offered_socials(model: Model) -> tuple[str, ...]:
    """The host's socials (behaviour.md §5 Telegram rules applied) that this engine is configured for,
    and that behaviour.md §5 allows in a frame payload, or Farcaster (signed in through its relay, not a
    frame payload)."""
    configured = model.embedded.socials
    return tuple(p for p in visible_socials(model)
                 if p in configured and (p in rules.SOCIAL_PROVIDERS or p == FARCASTER))


MAX_TOP_VIEW = 2  # AppKit: two socials are two marks side by side, no wide button
MAXIMUM_LENGTH = 6  # AppKit: more than this many and the row ends in "…" (All Socials)


@dataclass(frozen=True)
class SocialLayout:
    wide: str | None  # the first provider, drawn as "Continue with {name}"
    marks: tuple[str, ...]  # the compact row of marks
    more: bool  # "…" ends the row: All Socials lists every provider


def social_layout(providers: tuple[str, ...]) -> SocialLayout:
    """AppKit's split (w3m-social-login-widget topViewTemplate / bottomViewTemplate)."""
    if not providers:
        return SocialLayout(None, (), False)
    if len(providers) == MAX_TOP_VIEW:
        return SocialLayout(None, providers, False)
    if len(providers) > MAXIMUM_LENGTH:
        return SocialLayout(providers[0], providers[1:MAXIMUM_LENGTH - 1], True)
    return SocialLayout(providers[0], providers[1:], False)


def _state(model: Model, **changes: object) -> Model:
    return replace(model, embedded=replace(model.embedded, **changes))


def on_pressed(model: Model, msg: PressedSocial, now: int) -> Step:
    if msg.provider not in offered_socials(model):
        return model, []
    if msg.provider == FARCASTER:
        return farcaster.open_channel(model, now)
    model = _state(model, social=msg.provider, social_error=None)
    if model.router.view == SOCIAL_VIEW:  # Try again: the error goes, the frame's button stays
        return model, []
    return replace(model, router=router.push(model.router, SOCIAL_VIEW, msg.provider)), []


def on_signed_in(model: Model, msg: SocialSignedIn, now: int) -> Step:
    if msg.provider != model.embedded.social or not is_evm_address(msg.address):
        return model, []
    model, cmds = sign_in(model, msg.provider, msg.subject, msg.address, now, username=msg.username, email=msg.email)
    return handoff.adopt(model, msg.key), cmds  # a phone linked with no account, if it signed in


def on_failed(model: Model, msg: SocialFailed, now: int) -> Step:
    if msg.provider != model.embedded.social:
        return model, []
    return _state(model, social_error=msg.error[:200]), []


HANDLERS = (
    On(PressedSocial, on_pressed),
    On(SocialSignedIn, on_signed_in),
    On(SocialFailed, on_failed),
)

SLICE = Slice("social", HANDLERS)
