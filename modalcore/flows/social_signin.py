"""A verified social sign-in becomes the embedded account (issue 15 for the OpenID providers,
issue 33 for Farcaster)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.evolve import replace
from ..rules.addresses import checksum
from ..slices.embedded import EmbeddedState
from .smart_account import connect_embedded

if TYPE_CHECKING:
    from ..slices.model import Model, Step


def sign_in(model: Model, provider: str, subject: str, address: str, now: int, *, username: str = "",
            email: str = "", image: str = "") -> Step:
    """A verified social sign-in (the engine checked it; `address` is the identity's key): the
    embedded account is connected with the auth connector."""
    chain = model.networks.active or (model.networks.known[0].id if model.networks.known else "eip155:1")
    state = EmbeddedState(identity=f"{provider}:{subject}", user_email=email,
                          email_offered=model.embedded.email_offered, socials=model.embedded.socials)
    model = replace(model, embedded=state)
    return connect_embedded(model, checksum(address), chain, now, user_email=email, provider=provider,
                            username=username, image=image)
