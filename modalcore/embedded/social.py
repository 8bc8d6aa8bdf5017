"""Social sign-in for the engine (issue 15 §2): providers from the operator config, the pending
sign-ins between popup and callback, and the callback's checks (oidc.py) ending in the
identity's key (keys.py).

- `SocialSignIns.start(provider, session, now, key, bind)` (the frame's route, server/verify.py)
  → the authorization URL; the state, nonce, PKCE verifier, the frame's public key and the
  SHA-256 of the frame's flow value (`bind`, issue 38: made in the frame's script, never in a
  URL, a page or the host's socket) are kept, sealed, in the session store (social_notes.py:
  with Redis every host sees them, issue 42; at most MAX_PENDING, each for PENDING_TTL_MS).
- `SocialSignIns.complete(provider, params)` (the callback route) → the session id and who
  signed in, with the address of their key: `state` must name a pending sign-in of that
  provider (used once), the code is exchanged with the verifier, the ID token's signature,
  issuer, audience, expiry and nonce are checked.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass

import httpx

from ..core.services import ServiceError
from ..store.base import SessionStore
from ..store.memory import MemoryStore
from .keys import Identity, KeyVault
from .social_notes import GRANT, PENDING, NotesUnavailable, SocialNotes, pending_of, pending_value
from .userinfo import BUILT_IN, UserEndpoint
from .oidc import RANDOM_BYTES, OidcError, Pending, ProviderConfig, begin, discover, finish



@dataclass(frozen=True)
class ProviderSetting:
    name: str
    issuer: str
    client_id: str
    client_secret: str | None = None
    authorization_endpoint: str = ""
    token_endpoint: str = ""
    jwks_uri: str = ""
    kind: str = "oidc"  # "oauth2": identity from the user endpoint (userinfo.py)
    userinfo_url: str = ""  # oauth2: else the provider's built-in user endpoint
    scope: str = ""  # else the kind's / provider's default
    id_field: str = ""  # oauth2 field mapping overrides (dotted paths), else built in
    username_field: str = ""
    email_field: str = ""
    emails_url: str = ""  # oauth2: the email list asked when the user answer has none


def oauth2_config(setting: ProviderSetting, redirect_uri: str) -> ProviderConfig:
    """An OAuth 2.0 provider's config: the setting over the provider's built-in defaults."""
    known = BUILT_IN.get(setting.name)
    user = known.user if known else UserEndpoint("", "")
    # the built-in email list goes with the built-in user endpoint only: a token of another
    # server (userinfo_url set, e.g. GitHub Enterprise) is never sent to the built-in one
    emails_url = setting.emails_url or ("" if setting.userinfo_url else user.emails_url)
    endpoint = UserEndpoint(setting.userinfo_url or user.url, setting.id_field or user.id_field,
                            setting.username_field or user.username_field,
                            setting.email_field or user.email_field, emails_url)
    authorize = setting.authorization_endpoint or (known.authorization_endpoint if known else "")
    token = setting.token_endpoint or (known.token_endpoint if known else "")
    if not (endpoint.url and endpoint.id_field and authorize and token):
        raise OidcError(f"{setting.name} has no built-in OAuth 2.0 endpoints: configure "
                        "authorization_endpoint, token_endpoint, userinfo_url and id_field")
    return ProviderConfig(setting.name, setting.issuer, setting.client_id, redirect_uri, authorize,
                          token, "", setting.client_secret,
                          setting.scope or (known.scope if known else ""), "oauth2", endpoint)


class SocialFailure(Exception):
    """The callback did not sign anyone in; `session` is the session that asked, when known."""

    def __init__(self, message: str, session: str = "") -> None:
        super().__init__(message)
        self.session = session


@dataclass(frozen=True)
class SocialResult:
    session: str
    provider: str
    subject: str
    address: str
    email: str
    username: str
    key: str = ""  # the public key of the frame that began the sign-in (issue 27)
    state: str = ""
    bind: str = ""  # SHA-256 (hex) of the flow value of the frame that began it (issue 38)

    def bound_to(self, bind: str) -> bool:
        """`bind` is the flow value the beginning frame made (compared in constant time)."""
        return bool(self.bind) and hmac.compare_digest(bind_digest(bind), self.bind)


def bind_digest(bind: str) -> str:
    return hashlib.sha256(bind.encode()).hexdigest()


@dataclass(frozen=True)
class Grant:
    """A provider's sign-in that registers its frame's key and signs the session in, once the
    frame that began it confirms (server/social.py)."""

    result: SocialResult
    at: int

    @property
    def identity(self) -> str:
        return f"{self.result.provider}:{self.result.subject}"


class SocialSignIns:
    """`store`: the session store its pending sign-ins and grants are kept in (the server sets
    the engine's; by default this process's memory)."""

    def __init__(self, settings: dict[str, ProviderSetting], public_url: str, vault: KeyVault,
                 random: Callable[[int], bytes] = os.urandom, store: SessionStore | None = None) -> None:
        self.settings = settings
        self.public_url = public_url.rstrip("/")
        self.vault = vault
        self.random = random
        self.http: httpx.AsyncClient | None = None
        self._configs: dict[str, ProviderConfig] = {}
        self.notes = SocialNotes(store if store is not None else MemoryStore(), vault)

    @property
    def store(self) -> SessionStore:
        return self.notes.store

    @store.setter
    def store(self, store: SessionStore) -> None:
        self.notes.store = store

    def providers(self) -> tuple[str, ...]:
        return tuple(self.settings)

    def redirect_uri(self, provider: str) -> str:
        return f"{self.public_url}/embedded/oidc/callback/{provider}"

    async def config(self, provider: str) -> ProviderConfig:
        known = self._configs.get(provider)
        if known is not None:
            return known
        setting = self.settings[provider]
        if setting.kind == "oauth2":
            config = oauth2_config(setting, self.redirect_uri(provider))
        elif setting.authorization_endpoint and setting.token_endpoint and setting.jwks_uri:
            config = ProviderConfig(provider, setting.issuer, setting.client_id, self.redirect_uri(provider),
                                    setting.authorization_endpoint, setting.token_endpoint, setting.jwks_uri,
                                    setting.client_secret, setting.scope or "openid email profile")
        else:
            if self.http is None:
                raise OidcError("the engine has no HTTP client yet")
            config = await discover(self.http, provider, setting.issuer, setting.client_id,
                                    self.redirect_uri(provider), setting.client_secret)
        self._configs[provider] = config
        return config

    async def start(self, provider: str, session: str, now: int, key: str, bind: str = "") -> str:
        """The provider's authorization URL; `key`: the public key of the frame that opens the
        popup, which the completed sign-in registers once that frame confirms (issue 27) with
        `bind`, the flow value it made (issue 38; only its digest is kept)."""
        if provider not in self.settings:
            raise ServiceError(f"{provider} sign-in is not configured")
        try:
            config = await self.config(provider)
        except (OidcError, httpx.HTTPError) as error:
            raise ServiceError(f"{provider} cannot be reached ({type(error).__name__})") from None
        pending, url = begin(config, self.random(RANDOM_BYTES))
        try:
            await self.notes.put(PENDING, pending.state, pending_value(
                pending, session, now, key, bind_digest(bind) if bind else ""), now)
        except NotesUnavailable:
            raise ServiceError(f"{provider} sign-in cannot begin now (the session store)") from None
        return url

    async def complete(self, provider: str, params: dict[str, str], now: int) -> SocialResult:
        """Raises SocialFailure (naming the session when the state was known)."""
        state = params.get("state", "")
        value = await self.notes.get(PENDING, state, now, take=True) if state else None
        entry = pending_of(value) if value is not None else None
        if entry is None or entry[0].provider != provider or entry[0].state != state:
            raise SocialFailure("the sign-in callback does not match a sign-in in progress (state)")
        pending, session, _, key, bind = entry
        if self.http is None:
            raise SocialFailure("the engine has no HTTP client yet", session)
        try:
            signed = await finish(self.http, await self.config(provider), pending, params, now // 1000)
        except (OidcError, httpx.HTTPError) as error:
            raise SocialFailure(str(error) or type(error).__name__, session) from None
        address = self.vault.get_or_create(Identity(provider, signed.subject), now)
        return SocialResult(session, provider, signed.subject, address, signed.email or "",
                            signed.username or "", key, pending.state, bind)

    async def grant(self, result: SocialResult, token: str, now: int) -> None:
        """`token` (held by the callback's popup page only) may register `result.key` for its
        identity, once. NotesUnavailable: the session store did not keep it."""
        await self.notes.put(GRANT, token, {"result": asdict(result), "at": now}, now)

    async def granted(self, token: str, now: int) -> Grant | None:
        """The grant `token` names, if it is still valid (not spent: see `redeem`)."""
        return _grant(await self.notes.get(GRANT, token, now, take=False))

    async def redeem(self, token: str, now: int) -> Grant | None:
        """The grant, spent: of two hosts redeeming it, one gets it."""
        return _grant(await self.notes.get(GRANT, token, now, take=True))


def _grant(value: dict[str, object] | None) -> Grant | None:
    result, at = (value.get("result"), value.get("at")) if value is not None else (None, None)
    if not isinstance(result, dict) or not isinstance(at, int):
        return None
    try:
        return Grant(SocialResult(**result), at)
    except TypeError:
        return None
