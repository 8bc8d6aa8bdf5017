"""Social sign-in (issue 15 §2; SPEC §1 socials, §5 provider check): the provider's button on
Connect → ConnectingSocial draws a frame of the engine's own origin (`/embedded/social`,
server/verify.py) whose "Continue with …" opens the provider in a popup of that frame (state,
nonce, S256 PKCE) → the provider redirects to the engine's callback, which verifies everything
and asks the frame to confirm with its key (issue 27: the popup reports to the frame, not to
the host page) → the frame's key is registered and `SocialSignedIn` is delivered → connected
with the auth connector.

Farcaster is never offered: its sign-in needs a Farcaster relay and account, which cannot be
exercised end to end here (docs/features/embedded-wallet.md says why), and ConnectingFarcaster is
not built (issue 33): a button leading nowhere is worse than none.

On Connect the offered socials are laid out as AppKit's w3m-social-login-widget does
(`social_layout`): the first as a wide "Continue with …" button, the rest as a compact row of
marks; more than six offered, the row holds four marks and "…", which leads to All Socials.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import Handler, Slice
from ..rules import embedded as rules
from ..rules.addresses import checksum, is_evm_address
from ..slices import router
from ..slices.accounts import WalletInfo
from ..slices.embedded import (
    EmbeddedState,
    PressedSocial,
    SocialFailed,
    SocialSignedIn,
)
from ..slices.directory_wallets import socials as visible_socials
from .connect import NAMESPACE, connected

if TYPE_CHECKING:
    from ..slices.model import Model, Step

SOCIAL_VIEW = "ConnectingSocial"
NAMES = {"google": "Google", "x": "X", "discord": "Discord", "github": "GitHub", "apple": "Apple",
         "facebook": "Facebook"}


def offered_socials(model: Model) -> tuple[str, ...]:
    """The host's socials (SPEC §5 Telegram rules applied) that this engine is configured for,
    and that SPEC §5 allows in a frame payload (farcaster is not among them)."""
    configured = model.embedded.socials
    return tuple(p for p in visible_socials(model) if p in configured and p in rules.SOCIAL_PROVIDERS)


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
    model = _state(model, social=msg.provider, social_error=None)
    if model.router.view == SOCIAL_VIEW:  # Try again: the error goes, the frame's button stays
        return model, []
    return replace(model, router=router.push(model.router, SOCIAL_VIEW, msg.provider)), []


def on_signed_in(model: Model, msg: SocialSignedIn, now: int) -> Step:
    if msg.provider != model.embedded.social or not is_evm_address(msg.address):
        return model, []
    chain = model.networks.active or (model.networks.known[0].id if model.networks.known else "eip155:1")
    state = EmbeddedState(identity=f"{msg.provider}:{msg.subject}", user_email=msg.email,
                          email_offered=model.embedded.email_offered, socials=model.embedded.socials)
    model = replace(model, embedded=state)
    info = WalletInfo(name=rules.AUTH_CONNECTOR_NAME, type="AUTH", identifier=rules.AUTH_CONNECTOR_ID,
                      social=msg.provider)
    model, cmds = connected(model, rules.AUTH_CONNECTOR_ID, checksum(msg.address), chain, now, fresh=True,
                            info=info, user_email=msg.email or None)
    account = replace(model.accounts.get(NAMESPACE), social_provider=msg.provider,
                      user_name=msg.username or None)
    return replace(model, accounts=model.accounts.with_account(NAMESPACE, account)), cmds


def on_failed(model: Model, msg: SocialFailed, now: int) -> Step:
    if msg.provider != model.embedded.social:
        return model, []
    return _state(model, social_error=msg.error[:200]), []


HANDLERS: dict[type[Msg], Handler] = {
    PressedSocial: on_pressed,
    SocialSignedIn: on_signed_in,
    SocialFailed: on_failed,
}

SLICE = Slice("social", HANDLERS)
