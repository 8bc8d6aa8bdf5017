"""The operator's `[embedded]` config section, and opening what the embedded wallet's services
need from it (issue 15).

    [embedded]
    db = ".modalcore/embedded.db"        # email codes (digests) and sealed keys
    master_key_file = ""                 # else MODALCORE_MASTER_KEY / MODALCORE_MASTER_KEY_FILE
    [embedded.smtp]
    host = "smtp.example"  port = 587  tls = "starttls"   # "none", "starttls" or "ssl"
    user = "..."  password = "..."  sender = "Wallet <no-reply@example>"
    [embedded.mail_budget]               # sign-in codes mailed, sliding windows (0: off)
    address_per_minute = 5  address_per_hour = 30  session_per_hour = 5  email_per_hour = 5
    email_all_per_hour = 20  project_per_hour = 1000  engine_per_hour = 5000
    session_guesses_per_hour = 10  address_guesses_per_hour = 30

With `[database] url` (modalcore/durable/config.py) the records named above go to the shared
PostgreSQL instead of `db`, through the same stores (issue 42).

Without an `[embedded.smtp]` section the embedded wallet is off: its services are not
registered (a code request then fails with 'The code could not be sent. Try again').
The codes' HMAC key is derived from the engine's secret, so it survives restarts.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..aa.ledger import SponsorLedger
from ..durable.db import Durable
from ..durable.sqlite import SqliteDb
from .budget import BudgetLimits, BudgetStore, MailBudget
from .codes import EmailCodes
from .devicekeys import DeviceKeys
from .passkeys import Passkeys
from .intents import SendIntents
from .codestore import CodeStore
from ..farcaster.service import FarcasterSetting, FarcasterSignIns
from .keys import Identity, KeyVault
from .mail import SmtpConfig, SmtpSender
from .masterkey import MasterKey, load_master_key
from .service import EmbeddedWallet
from .signer import sign_text
from .social import ProviderSetting, SocialSignIns


class SmtpSection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    host: str
    port: int = Field(ge=1, le=65535)
    tls: Literal["none", "starttls", "ssl"] = "starttls"
    user: str | None = None
    password: str | None = Field(default=None, repr=False)
    sender: str
    ca_file: str | None = None


class SocialSection(BaseModel):
    """One provider and its client. kind "oidc": its issuer (discovery) or all three endpoints.
    kind "oauth2" (no ID token; GitHub, X, Discord): the identity comes from `userinfo_url`
    (default: the provider's real user endpoint) through the provider's built-in field mapping;
    every endpoint and field may be overridden (a provider without built-ins must name them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["oidc", "oauth2"] = "oidc"
    issuer: str = ""
    client_id: str
    client_secret: str | None = Field(default=None, repr=False)
    authorization_endpoint: str = ""
    token_endpoint: str = ""
    jwks_uri: str = ""
    userinfo_url: str = ""
    scope: str = ""
    id_field: str = ""
    username_field: str = ""
    email_field: str = ""
    emails_url: str = ""  # oauth2: asked when the user answer has no email (GitHub: /user/emails)

    @model_validator(mode="after")
    def _complete(self) -> SocialSection:
        if self.kind == "oidc" and not self.issuer:
            raise ValueError("an oidc social provider needs its issuer")
        if self.kind == "oidc" and (self.userinfo_url or self.id_field or self.username_field
                                    or self.email_field or self.emails_url):
            raise ValueError("userinfo_url and the *_field mapping are for kind = \"oauth2\"")
        return self


class FarcasterSection(BaseModel):
    """Sign in with Farcaster (issue 33): the auth relay, and the ID registry with the RPC of its
    chain (OP Mainnet; the demo's dev chain stands in); the domain and URI the messages name."""

    model_config = ConfigDict(extra="forbid")
    relay_url: str = Field(pattern=r"^https?://", max_length=512)
    rpc_url: str = Field(pattern=r"^https?://", max_length=512)
    id_registry: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$")
    domain: str = Field(min_length=1, max_length=253)
    siwe_uri: str = Field(pattern=r"^https?://", max_length=512)
    channel_ttl_ms: int = Field(default=300_000, ge=10_000, le=3_600_000)

    def setting(self) -> FarcasterSetting:
        return FarcasterSetting(self.relay_url.rstrip("/"), self.rpc_url, self.id_registry, self.domain,
                                self.siwe_uri, self.channel_ttl_ms)


class EmbeddedSection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    db: str = ".modalcore/embedded.db"
    master_key_file: str = ""
    public_url: str = ""  # the engine's URL as browsers reach it (the providers' redirect)
    smtp: SmtpSection | None = None
    socials: dict[Literal["google", "x", "discord", "github", "apple", "facebook"], SocialSection] = {}
    mail_budget: BudgetLimits = BudgetLimits()
    farcaster: FarcasterSection | None = None  # Sign in with Farcaster: its relay, RPC and ID registry; absent: not offered


def section_of(extra: dict[str, object] | None) -> EmbeddedSection:
    return EmbeddedSection.model_validate((extra or {}).get("embedded") or {})


def code_key(engine_secret: bytes) -> bytes:
    return hmac.new(engine_secret, b"modalcore email codes", hashlib.sha256).digest()


def open_wallet(section: EmbeddedSection, resolve: Any, engine_secret: bytes,
                engine_url: str = "", shared: Durable | None = None) -> EmbeddedWallet | None:
    """The codes, mailer, vault and social sign-ins of `section` (`resolve(path) -> Path`
    resolves relative paths); None when neither SMTP nor a social provider is configured.
    The sign-in mail names the engine's host (`public_url`, else the engine's `engine_url`).
    Every store writes to one durable database: `shared` (the `[database]` PostgreSQL, its
    opener's to close) when given, else the SQLite file `section.db` (the wallet's to close)."""
    if section.smtp is None and not section.socials and section.farcaster is None:
        return None
    smtp = section.smtp
    master = (MasterKey.read_file(resolve(section.master_key_file)) if section.master_key_file
              else load_master_key())
    path: Path | str = section.db if section.db == ":memory:" else resolve(section.db)
    db: Durable = shared if shared is not None else SqliteDb(path)
    sender = None if smtp is None else SmtpSender(SmtpConfig(
        host=smtp.host, port=smtp.port, sender=smtp.sender, tls=smtp.tls, user=smtp.user,
        password=smtp.password, ca_file=smtp.ca_file, site=urlsplit(section.public_url or engine_url).netloc))
    codes = EmailCodes(CodeStore(db), code_key(engine_secret))
    vault = KeyVault(db, master)
    settings: dict[str, ProviderSetting] = {name: ProviderSetting(
        name, s.issuer, s.client_id, s.client_secret, s.authorization_endpoint, s.token_endpoint,
        s.jwks_uri, s.kind, s.userinfo_url, s.scope, s.id_field, s.username_field, s.email_field,
        s.emails_url)
        for name, s in section.socials.items()}
    socials = SocialSignIns(settings, section.public_url, vault) if settings else None
    budget = MailBudget(BudgetStore(db), section.mail_budget)
    devices = DeviceKeys(db)
    farcaster = None if section.farcaster is None else FarcasterSignIns(
        section.farcaster.setting(), lambda fid, now: vault.get_or_create(Identity("farcaster", fid), now),
        register_key=devices.register,
        sign_text=lambda fid, text: sign_text(vault, Identity("farcaster", fid), text))
    return EmbeddedWallet(codes=codes, mailer=sender, vault=vault, socials=socials, devices=devices,
                          budget=budget, farcaster=farcaster, sponsored=SponsorLedger(db),
                          intents=SendIntents(db), passkeys=Passkeys(db), db=None if shared is not None else db)
