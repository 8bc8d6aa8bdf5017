"""Social sign-in as an OpenID Connect relying party (issue 15 §2): authorization code + PKCE.

`begin` (pure: randomness passed in) makes the state, nonce and S256 code verifier and the
authorization URL; `finish` checks the callback's state (and `iss` when sent, RFC 9207),
exchanges the code at the token endpoint and verifies the ID token (idtoken.py). Provider
endpoints come from the operator config or the provider's discovery document.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx

from .idtoken import IdTokenError, verify_id_token
from .userinfo import UserEndpoint, UserInfoError, identity, primary_email

SOCIAL_PROVIDERS = ("google", "x", "discord", "github", "apple", "facebook")
RANDOM_BYTES = 96  # 32 each for state, nonce and the code verifier


class OidcError(ValueError):
    """The sign-in failed: refused by the user or provider, forged or stale callback, bad token."""


@dataclass(frozen=True)
class ProviderConfig:
    name: str
    issuer: str
    client_id: str
    redirect_uri: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    client_secret: str | None = field(default=None, repr=False)
    scope: str = "openid email profile"
    kind: str = "oidc"  # "oauth2": no ID token, the identity comes from `user` (userinfo.py)
    user: UserEndpoint | None = None

    def __post_init__(self) -> None:
        if self.name not in SOCIAL_PROVIDERS:  # behaviour.md §5: the social provider's payload check
            raise OidcError(f"social provider must be one of {', '.join(SOCIAL_PROVIDERS)}")
        if self.kind not in ("oidc", "oauth2") or (self.kind == "oauth2") != (self.user is not None):
            raise OidcError("an oauth2 provider needs a user endpoint, an oidc provider none")


@dataclass(frozen=True)
class Pending:
    """What the engine keeps between the popup opening and the callback."""

    provider: str
    state: str
    nonce: str
    code_verifier: str


@dataclass(frozen=True)
class SignedIn:
    provider: str
    subject: str
    email: str | None
    username: str | None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def begin(config: ProviderConfig, random_bytes: bytes) -> tuple[Pending, str]:
    if len(random_bytes) < RANDOM_BYTES:
        raise ValueError(f"need {RANDOM_BYTES} random bytes")
    pending = Pending(config.name, _b64(random_bytes[:32]), _b64(random_bytes[32:64]),
                      _b64(random_bytes[64:96]))
    challenge = _b64(hashlib.sha256(pending.code_verifier.encode()).digest())
    params = {
        "response_type": "code", "client_id": config.client_id,
        "redirect_uri": config.redirect_uri, "scope": config.scope, "state": pending.state,
        "nonce": pending.nonce, "code_challenge": challenge, "code_challenge_method": "S256",
    }
    if config.kind == "oauth2":
        del params["nonce"]  # no ID token to carry it
    query = urlencode(params)
    return pending, f"{config.authorization_endpoint}?{query}"


def check_callback(config: ProviderConfig, pending: Pending, params: dict[str, str]) -> str:
    """The authorization code, once the callback is known to answer this sign-in."""
    state = params.get("state", "")
    if not hmac.compare_digest(state.encode(), pending.state.encode()):
        raise OidcError("the sign-in callback does not match this sign-in (state)")
    if "iss" in params and config.issuer and params["iss"] != config.issuer:
        raise OidcError("the sign-in callback is from another issuer")
    if "error" in params:
        raise OidcError(f"the provider refused the sign-in ({params['error'][:64]})")
    code = params.get("code", "")
    if not code:
        raise OidcError("the sign-in callback has no code")
    return code


async def discover(http: httpx.AsyncClient, name: str, issuer: str, client_id: str,
                   redirect_uri: str, client_secret: str | None = None) -> ProviderConfig:
    response = await http.get(f"{issuer.rstrip('/')}/.well-known/openid-configuration")
    response.raise_for_status()
    doc = response.json()
    if doc.get("issuer") != issuer:
        raise OidcError("the discovery document names another issuer")
    return ProviderConfig(name, issuer, client_id, redirect_uri, doc["authorization_endpoint"],
                          doc["token_endpoint"], doc["jwks_uri"], client_secret)


async def _exchange(http: httpx.AsyncClient, config: ProviderConfig, pending: Pending,
                    code: str) -> dict[str, Any]:
    """The token endpoint's JSON answer for the code (with the PKCE verifier)."""
    form = {"grant_type": "authorization_code", "code": code,
            "redirect_uri": config.redirect_uri, "code_verifier": pending.code_verifier,
            "client_id": config.client_id}
    headers = {"Accept": "application/json"}  # GitHub answers form-encoded without it
    if config.client_secret is not None:
        response = await http.post(config.token_endpoint, data=form, headers=headers,
                                   auth=httpx.BasicAuth(config.client_id, config.client_secret))
    else:
        response = await http.post(config.token_endpoint, data=form, headers=headers)
    if response.status_code != 200:
        error = _field(response, "error")
        raise OidcError(f"the provider refused the code (HTTP {response.status_code}"
                        f"{', ' + error if error else ''})")
    doc = response.json()
    if not isinstance(doc, dict):
        raise OidcError("the provider's token answer is not an object")
    if "error" in doc:  # GitHub refuses a code with HTTP 200 and an error field
        raise OidcError(f"the provider refused the code ({_field(response, 'error')})")
    return doc


async def finish(http: httpx.AsyncClient, config: ProviderConfig, pending: Pending,
                 params: dict[str, str], now_s: int) -> SignedIn:
    code = check_callback(config, pending, params)
    if config.kind == "oauth2":
        return await _finish_oauth2(http, config, pending, code)
    try:
        id_token = (await _exchange(http, config, pending, code)).get("id_token")
        jwks = (await http.get(config.jwks_uri)).json()
    except (httpx.HTTPError, ValueError) as error:
        if isinstance(error, OidcError):
            raise
        raise OidcError(f"the provider could not be reached ({type(error).__name__})") from None
    if not isinstance(id_token, str):
        raise OidcError("the provider sent no ID token")
    try:
        claims = verify_id_token(id_token, jwks, config.issuer, config.client_id,
                                 pending.nonce, now_s)
    except IdTokenError as error:
        raise OidcError(str(error)) from None
    return SignedIn(config.name, claims["sub"], _str(claims.get("email")),
                    _str(claims.get("preferred_username")))


async def _finish_oauth2(http: httpx.AsyncClient, config: ProviderConfig, pending: Pending,
                         code: str) -> SignedIn:
    """OAuth 2.0 without ID token: the access token asks the provider's user endpoint."""
    assert config.user is not None
    try:
        token = (await _exchange(http, config, pending, code)).get("access_token")
        if not isinstance(token, str) or not token:
            raise OidcError("the provider sent no access token")
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        response = await http.get(config.user.url, headers=headers)
        if response.status_code != 200:
            raise OidcError(f"the provider's user endpoint refused (HTTP {response.status_code})")
        subject, username, email = identity(config.user, response.json())
        if email is None and config.user.emails_url:
            # GitHub leaves a private email out of /user; /user/emails (scope user:email) has it.
            # Not answered (no scope, an error): signed in without an email.
            email = await _primary_email(http, config.user.emails_url, headers)
    except UserInfoError as error:
        raise OidcError(str(error)) from None
    except (httpx.HTTPError, ValueError) as error:
        if isinstance(error, OidcError):
            raise
        raise OidcError(f"the provider could not be reached ({type(error).__name__})") from None
    return SignedIn(config.name, subject, email, username)


async def _primary_email(http: httpx.AsyncClient, url: str, headers: dict[str, str]) -> str | None:
    response = await http.get(url, headers=headers)
    if response.status_code != 200:
        return None
    try:
        return primary_email(response.json())
    except ValueError:
        return None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _field(response: httpx.Response, name: str) -> str:
    try:
        value = response.json().get(name)
    except ValueError:
        return ""
    return value[:64] if isinstance(value, str) else ""
