"""Social sign-in (issue 15 §2; SPEC §1 socials, §5 provider check): the provider's button on
Connect → the engine makes the authorization URL (state, nonce, S256 PKCE; `embedded.social_begin`)
→ the browser opens it in a popup (`open_url`) → the provider redirects to the engine's callback,
which verifies everything and delivers `SocialSignedIn` → connected with the auth connector.

Farcaster (issue 33) is offered when the engine has a [embedded.farcaster] config: its button
opens ConnectingFarcaster (`flows/farcaster.py`), not a popup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import Call, Effect
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import Handler, Slice
from ..rules import embedded as rules
from ..rules.addresses import is_evm_address
from ..slices import router
from ..slices.embedded import (
    PressedSocial,
    SocialBegun,
    SocialFailed,
    SocialPopupOpened,
    SocialSignedIn,
)
from ..slices.directory_wallets import socials as visible_socials
from . import farcaster
from .social_signin import sign_in

if TYPE_CHECKING:
    from ..slices.model import Model, Step

SOCIAL_VIEW = "ConnectingSocial"
BEGIN_SERVICE = "embedded.social_begin"
NAMES = {"google": "Google", "x": "X", "discord": "Discord", "github": "GitHub", "apple": "Apple",
         "facebook": "Facebook", "farcaster": "Farcaster"}
FARCASTER = "farcaster"
POPUP_FAILED = "The sign-in window could not be opened"


def offered_socials(model: Model) -> tuple[str, ...]:
    """The host's socials (SPEC §5 Telegram rules applied) that this engine is configured for,
    and that SPEC §5 allows in a frame payload, or Farcaster (signed in through its relay, not a
    frame payload)."""
    configured = model.embedded.socials
    return tuple(p for p in visible_socials(model)
                 if p in configured and (p in rules.SOCIAL_PROVIDERS or p == FARCASTER))


def _state(model: Model, **changes: object) -> Model:
    return replace(model, embedded=replace(model.embedded, **changes))


def on_pressed(model: Model, msg: PressedSocial, now: int) -> Step:
    if msg.provider not in offered_socials(model):
        return model, []
    if msg.provider == FARCASTER:
        return farcaster.open_channel(model, now)
    model = _state(model, social=msg.provider, social_error=None)
    model = replace(model, router=router.push(model.router, SOCIAL_VIEW, msg.provider))
    return model, [Call(BEGIN_SERVICE, {"provider": msg.provider, "session": model.session_id}, SocialBegun,
                        key=msg.provider)]


def on_begun(model: Model, msg: SocialBegun, now: int) -> Step:
    if msg.key != model.embedded.social:
        return model, []
    if not msg.ok or msg.result is None:
        return _state(model, social_error=msg.error or POPUP_FAILED), []
    model, eid = model.next_id("e")
    return model, [Effect(eid=eid, kind="open_url", req={"url": msg.result.url, "target": "_blank"},
                          reply=SocialPopupOpened, key=msg.key)]


def on_popup(model: Model, msg: SocialPopupOpened, now: int) -> Step:
    if msg.key != model.embedded.social or msg.ok:
        return model, []
    return _state(model, social_error=POPUP_FAILED), []


def on_signed_in(model: Model, msg: SocialSignedIn, now: int) -> Step:
    if msg.provider != model.embedded.social or not is_evm_address(msg.address):
        return model, []
    return sign_in(model, msg.provider, msg.subject, msg.address, now, username=msg.username, email=msg.email)


def on_failed(model: Model, msg: SocialFailed, now: int) -> Step:
    if msg.provider != model.embedded.social:
        return model, []
    return _state(model, social_error=msg.error[:200]), []


HANDLERS: dict[type[Msg], Handler] = {
    PressedSocial: on_pressed,
    SocialBegun: on_begun,
    SocialPopupOpened: on_popup,
    SocialSignedIn: on_signed_in,
    SocialFailed: on_failed,
}

SLICE = Slice("social", HANDLERS)
