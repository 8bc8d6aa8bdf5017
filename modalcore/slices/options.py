"""Host options (SPEC §1), validated at the edge from the join frame."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..rules.caip import parse_caip2
from ..rules import texts
from ..core.evolve import replace
from .theme import from_options

if TYPE_CHECKING:
    from ..chains.catalog import Network
    from .model import Model

SOCIALS = ("google", "x", "discord", "farcaster", "github", "apple", "facebook")
CONNECT_METHODS = ("email", "social", "wallet")


class OptionsError(ValueError):
    """Host options that the engine refuses; the message is the SPEC's text."""


class Features(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    swaps: bool = True
    onramp: bool = True
    receive: bool = True
    send: bool = True
    email: bool = True
    emailShowWallets: bool = True
    history: bool = True
    analytics: bool = True
    allWallets: bool = True
    legalCheckbox: bool = False
    smartSessions: bool = False
    collapseWallets: bool = False
    pay: bool = False
    socials: tuple[str, ...] = SOCIALS
    connectMethodsOrder: tuple[Literal["email", "social", "wallet"], ...] | None = None


class Metadata(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    name: Annotated[str, Field(max_length=128)] = "Demo dApp"
    description: Annotated[str, Field(max_length=512)] = ""
    url: Annotated[str, Field(max_length=512)] = ""
    icons: tuple[Annotated[str, Field(max_length=2048)], ...] = ()


class SiwxOptions(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    required: bool = False
    statement: Annotated[str, Field(max_length=512)] = "Sign in to continue"
    resources: tuple[Annotated[str, Field(max_length=512)], ...] = ()
    expirationSeconds: Annotated[int, Field(ge=60, le=30 * 86400)] = 86400


class CustomWallet(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    id: Annotated[str, Field(max_length=128)]
    name: Annotated[str, Field(max_length=128)]
    image_url: Annotated[str, Field(max_length=2048)] = ""
    mobile_link: str | None = None
    desktop_link: str | None = None
    webapp_link: str | None = None


class HostOptions(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    networks: tuple[str, ...] = ()
    defaultNetwork: str | None = None
    metadata: Metadata = Metadata()
    features: Features = Features()
    themeMode: Literal["light", "dark"] = "dark"
    themeVariables: dict[str, str | int] = {}
    siwx: SiwxOptions | None = None
    embedded: bool = False
    disableAppend: bool = False
    featuredWalletIds: tuple[str, ...] = ()
    includeWalletIds: tuple[str, ...] = ()
    excludeWalletIds: tuple[str, ...] = ()
    customWallets: tuple[CustomWallet, ...] = ()
    manualWCControl: bool = False
    allowUnsupportedChain: bool = False
    enableNetworkSwitch: bool = True
    debug: bool = False
    universalProvider: bool = False  # a universal-provider setup: wallets need a link (SPEC §5)

    @field_validator("networks")
    @classmethod
    def _caip2(cls, networks: tuple[str, ...]) -> tuple[str, ...]:
        for network in networks:
            parse_caip2(network)
        return networks


def parse_options(raw: dict[str, Any]) -> HostOptions:
    if raw.get("siweConfig") is not None and raw.get("siwx") is not None:
        raise OptionsError(texts.BOTH_SIWE_AND_SIWX)
    try:
        return HostOptions.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        cause = first.get("ctx", {}).get("error")
        if isinstance(cause, ValueError):
            raise OptionsError(str(cause)) from error
        where = ".".join(str(part) for part in first["loc"])
        raise OptionsError(f"{where}: {first['msg']}") from error


def apply_options(model: Model, options: HostOptions, networks: tuple[Network, ...]) -> Model:
    """A reloaded page may bring changed options: they replace the stored ones (the page's
    createModal call is the truth), keeping what the visitor did (connection, sign-in session)."""
    if options == model.options:
        return model
    siwx = replace(model.siwx, enabled=options.siwx is not None,
                   required=bool(options.siwx and options.siwx.required))
    known = networks if networks else model.networks.known
    ids = tuple(n.id for n in known)
    active = model.networks.active if model.networks.active in ids else (
        options.defaultNetwork if options.defaultNetwork in ids else (ids[0] if ids else None))
    return replace(
        model,
        options=options,
        siwx=siwx,
        theme=from_options(options.themeMode, options.themeVariables),
        networks=replace(model.networks, known=known, active=active),
    )
