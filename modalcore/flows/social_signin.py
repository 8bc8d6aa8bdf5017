"""A verified social sign-in becomes the embedded account (issue 15 for the OpenID providers,
issue 33 for Farcaster)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.evolve import replace
from ..rules import embedded as rules
from ..rules.addresses import checksum
from ..slices.accounts import WalletInfo
from ..slices.embedded import EmbeddedState
from .connect import NAMESPACE, connected

if TYPE_CHECKING:
    from ..slices.model import Model, Step


def sign_in(model: Model, provider: str, subject: str, address: str, now: int, *, username: str = "",
            email: str = "") -> Step:
    """A verified social sign-in (the engine checked it; `address` is the identity's key): the
    embedded account is connected with the auth connector."""
    chain = model.networks.active or (model.networks.known[0].id if model.networks.known else "eip155:1")
    state = EmbeddedState(identity=f"{provider}:{subject}", user_email=email,
                          email_offered=model.embedded.email_offered, socials=model.embedded.socials)
    model = replace(model, embedded=state)
    info = WalletInfo(name=rules.AUTH_CONNECTOR_NAME, type="AUTH", identifier=rules.AUTH_CONNECTOR_ID,
                      social=provider)
    model, cmds = connected(model, rules.AUTH_CONNECTOR_ID, checksum(address), chain, now, fresh=True,
                            info=info, user_email=email or None)
    account = replace(model.accounts.get(NAMESPACE), social_provider=provider, user_name=username or None)
    return replace(model, accounts=model.accounts.with_account(NAMESPACE, account)), cmds
