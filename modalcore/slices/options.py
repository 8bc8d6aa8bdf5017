"""Host options (behaviour.md §1), validated at the edge from the join frame."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..rules import limits as L
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
    """Host options that the engine refuses; the message is behaviour.md §5's text."""


# Every string and list a host page sends is bounded (rules/limits.py; PROTOCOL.md, "Bounds").
WalletId = Annotated[str, Field(min_length=1, max_length=L.WALLET_ID_CHARS)]
WalletIds = Annotated[tuple[WalletId, ...], Field(max_length=L.MAX_WALLET_IDS)]
ContractAddress = Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{40}$")]
Link = Annotated[str, Field(max_length=L.WALLET_LINK_CHARS)]
IconUrl = Annotated[str, Field(max_length=L.ICON_URL_CHARS)]
NetworkId = Annotated[str, Field(max_length=L.NETWORK_ID_CHARS)]
Social = Annotated[str, Field(max_length=L.SOCIAL_CHARS)]
SiwxResource = Annotated[str, Field(max_length=L.SIWX_RESOURCE_CHARS)]
ThemeKey = Annotated[str, Field(max_length=L.THEME_KEY_CHARS)]
ThemeValue = Annotated[str, Field(max_length=L.THEME_VALUE_CHARS)]


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
    continueOnPhone: bool = False  # the footer's "Continue on your phone" (issue 44 item 1)
    socials: Annotated[tuple[Social, ...], Field(max_length=L.MAX_SOCIALS)] = SOCIALS
    connectMethodsOrder: Annotated[tuple[Literal["email", "social", "wallet"], ...], Field(max_length=L.MAX_CONNECT_METHODS)] | None = None


class Metadata(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    name: Annotated[str, Field(max_length=L.METADATA_NAME_CHARS)] = "Demo dApp"
    description: Annotated[str, Field(max_length=L.METADATA_DESCRIPTION_CHARS)] = ""
    url: Annotated[str, Field(max_length=L.METADATA_URL_CHARS)] = ""
    icons: Annotated[tuple[IconUrl, ...], Field(max_length=L.MAX_METADATA_ICONS)] = ()


DEFAULT_STATEMENT = "Sign in to continue"


class SiwxOptions(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    required: bool = False
    # the statement line of the sign-in message; unset: "Sign in to continue", or none when one
    # Farcaster approval signs in (a statement other than "Farcaster Auth" takes two steps)
    statement: Annotated[str | None, Field(max_length=L.SIWX_STATEMENT_CHARS)] = None
    resources: Annotated[tuple[SiwxResource, ...], Field(max_length=L.MAX_SIWX_RESOURCES)] = ()
    expirationSeconds: Annotated[int, Field(ge=60, le=30 * 86400)] = 86400


class CustomWallet(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    id: WalletId
    name: Annotated[str, Field(max_length=L.WALLET_NAME_CHARS)]
    image_url: IconUrl = ""
    mobile_link: Link | None = None
    desktop_link: Link | None = None
    webapp_link: Link | None = None


class HostOptions(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    networks: Annotated[tuple[NetworkId, ...], Field(max_length=L.MAX_NETWORKS)] = ()
    defaultNetwork: NetworkId | None = None
    metadata: Metadata = Metadata()
    features: Features = Features()
    themeMode: Literal["light", "dark"] = "dark"
    themeVariables: Annotated[
        dict[ThemeKey, ThemeValue | int], Field(max_length=L.MAX_THEME_VARIABLES)
    ] = {}
    siwx: SiwxOptions | None = None
    embedded: bool = False
    disableAppend: bool = False
    featuredWalletIds: WalletIds = ()
    includeWalletIds: WalletIds = ()
    excludeWalletIds: WalletIds = ()
    customWallets: Annotated[tuple[CustomWallet, ...], Field(max_length=L.MAX_CUSTOM_WALLETS)] = ()
    manualWCControl: bool = False
    allowUnsupportedChain: bool = False
    enableNetworkSwitch: bool = True
    debug: bool = False
    universalProvider: bool = False  # a universal-provider setup: wallets need a link (behaviour.md §5)
    enableWalletConnect: bool = True  # the WalletConnect connector (QR code / deep link pairing)
    locale: Annotated[str, Field(max_length=L.LOCALE_CHARS)] | None = None  # BCP 47; else the browser's
    # the legal checkbox's links (AppKit's termsConditionsUrl / privacyPolicyUrl): http(s) only
    termsConditionsUrl: Annotated[str, Field(max_length=L.METADATA_URL_CHARS, pattern=r"^https?://")] | None = None
    privacyPolicyUrl: Annotated[str, Field(max_length=L.METADATA_URL_CHARS, pattern=r"^https?://")] | None = None
    # the contracts this dApp calls (issue 43): the approval warns of a call with data to another
    # one (not a token of the network, nor a contract the engine built the call for)
    contracts: Annotated[tuple[ContractAddress, ...], Field(max_length=L.MAX_DECLARED_CONTRACTS)] = ()

    @field_validator("networks")
    @classmethod
    def _caip2(cls, networks: tuple[str, ...]) -> tuple[str, ...]:
        for network in networks:
            parse_caip2(network)
        return networks


def parse_options(raw: Mapping[str, object]) -> HostOptions:
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
