"""The built-in OAuth 2.0 providers (issue 15: GitHub, Discord, X issue no ID token) through
`SocialSignIns`, with recorded answers of their hosted APIs over an httpx MockTransport that
checks the exact requests: the authorization URL (PKCE S256 + state, no nonce), the code
exchange at the real token endpoint, and the user endpoint called with `Authorization: Bearer`.
The identity is `<provider>:<id>` (same address for a returning user); a failing user endpoint,
an answer without id, or a wrong state refuse with SocialFailure and store nothing."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from pydantic import ValidationError

from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.setup import SocialSection
from modalcore.embedded.social import ProviderSetting, SocialFailure, SocialSignIns

NOW = 1_700_000_000_000
TOKEN = "gho_recorded-access-token"

# Recorded (trimmed) answers of the providers' user endpoints.
GITHUB_USER = {"login": "octocat", "id": 583231, "node_id": "MDQ6VXNlcjU4MzIzMQ==",
               "type": "User", "name": "The Octocat", "email": "octocat@github.com"}
DISCORD_USER = {"id": "80351110224678912", "username": "nelly", "discriminator": "0",
                "global_name": "Nelly", "avatar": None, "email": "nelly@discord.com",
                "verified": True}
X_USER = {"data": {"id": "2244994945", "name": "X Dev", "username": "XDevelopers"}}

CASES = [
    ("github", "https://github.com/login/oauth/authorize",
     "https://github.com/login/oauth/access_token", "https://api.github.com/user", GITHUB_USER,
     "583231", "octocat", "octocat@github.com"),
    ("discord", "https://discord.com/oauth2/authorize", "https://discord.com/api/oauth2/token",
     "https://discord.com/api/users/@me", DISCORD_USER, "80351110224678912", "nelly",
     "nelly@discord.com"),
    ("x", "https://x.com/i/oauth2/authorize", "https://api.x.com/2/oauth2/token",
     "https://api.x.com/2/users/me", X_USER, "2244994945", "XDevelopers", ""),
]


GITHUB_EMAILS_URL = "https://api.github.com/user/emails"
# Recorded GitHub answers for a user whose email is private: /user says "email": null, and
# /user/emails (scope user:email) lists the addresses.
GITHUB_PRIVATE_USER = {**GITHUB_USER, "email": None}
GITHUB_EMAILS = [
    {"email": "octocat@users.noreply.github.com", "primary": False, "verified": True, "visibility": None},
    {"email": "old@example.com", "primary": False, "verified": False, "visibility": None},
    {"email": "octocat@example.com", "primary": True, "verified": True, "visibility": "private"},
]


class Provider:
    """The hosted provider as recorded: its token endpoint, user endpoint and (GitHub) email
    list."""

    def __init__(self, token_url: str, user_url: str, user: Any, user_status: int = 200,
                 emails: Any = None, emails_status: int = 200) -> None:
        self.token_url, self.user_url, self.user, self.user_status = token_url, user_url, user, user_status
        self.emails, self.emails_status = emails, emails_status
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.method == "POST" and str(request.url) == self.token_url:
            return httpx.Response(200, json={"access_token": TOKEN, "token_type": "bearer",
                                             "scope": "read:user,user:email"})
        if request.method == "GET" and str(request.url) == self.user_url:
            return httpx.Response(self.user_status, json=self.user)
        if request.method == "GET" and str(request.url) == GITHUB_EMAILS_URL and self.emails is not None:
            if self.emails_status != 200:
                return httpx.Response(self.emails_status, json={"message": "Resource not accessible by integration"})
            return httpx.Response(200, json=self.emails)
        return httpx.Response(404, json={"message": "Not Found"})


def _signins(tmp_path: Path, name: str, handler: Callable[[httpx.Request], httpx.Response],
             **setting: str) -> tuple[SocialSignIns, KeyVault]:
    vault = KeyVault(tmp_path / "embedded.db", MasterKey.generate())
    signins = SocialSignIns({name: ProviderSetting(name, "", "client-1", "secret-1", kind="oauth2", **setting)},
                            "https://engine.test", vault, random=lambda n: bytes(range(n)))
    signins.http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return signins, vault


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@pytest.mark.parametrize(("name", "authorize", "token_url", "user_url", "user", "subject", "username", "email"), CASES)
async def test_built_in_provider_sends_exact_requests_and_maps_the_identity(
        tmp_path: Path, name: str, authorize: str, token_url: str, user_url: str, user: Any,
        subject: str, username: str, email: str) -> None:
    provider = Provider(token_url, user_url, user)
    signins, vault = _signins(tmp_path, name, provider)
    addresses = []
    for session in ("s1", "s2"):
        url = await signins.start(name, session, NOW, key="")
        assert url.startswith(authorize + "?")
        query = _query(url)
        assert "nonce" not in query and query["code_challenge_method"] == "S256"
        assert query["client_id"] == "client-1" and query["response_type"] == "code"
        assert query["redirect_uri"] == f"https://engine.test/embedded/oidc/callback/{name}"
        provider.requests.clear()
        result = await signins.complete(name, {"code": "code-1", "state": query["state"]}, NOW + 1000)
        assert (result.session, result.provider, result.subject) == (session, name, subject)
        assert (result.username, result.email) == (username, email)
        exchange, me = provider.requests
        assert (exchange.method, str(exchange.url)) == ("POST", token_url)
        form = {k: v[0] for k, v in parse_qs(exchange.content.decode()).items()}
        verifier = form["code_verifier"]
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        assert challenge == query["code_challenge"]
        assert form["code"] == "code-1" and form["grant_type"] == "authorization_code"
        assert exchange.headers["authorization"] == "Basic " + base64.b64encode(b"client-1:secret-1").decode()
        assert (me.method, str(me.url)) == ("GET", user_url)
        assert me.headers["authorization"] == f"Bearer {TOKEN}"
        addresses.append(result.address)
    assert addresses[0] == addresses[1] == vault.address_of(Identity(name, subject))


@pytest.mark.parametrize(("status", "user", "error"), [
    (401, {"message": "Bad credentials"}, "user endpoint refused (HTTP 401)"),
    (200, {"login": "ghost"}, "names no user (no id)"),
    (200, {"id": True, "login": "ghost"}, "names no user (no id)"),
    (200, {"id": "x" * 200}, "empty or oversized id"),
    (200, ["not", "an", "object"], "names no user (no id)"),
])
async def test_a_failing_user_endpoint_refuses_and_stores_nothing(
        tmp_path: Path, status: int, user: Any, error: str) -> None:
    provider = Provider(CASES[0][2], CASES[0][3], user, status)
    signins, vault = _signins(tmp_path, "github", provider)
    state = _query(await signins.start("github", "s1", NOW, key=""))["state"]
    with pytest.raises(SocialFailure, match=re.escape(error)) as failure:
        await signins.complete("github", {"code": "c", "state": state}, NOW + 1000)
    assert failure.value.session == "s1"
    assert vault.address_of(Identity("github", "ghost")) is None
    assert not vault._db.execute("SELECT 1 FROM embedded_keys").fetchall()  # no key at all


async def test_github_with_a_private_email_asks_user_emails_and_takes_the_primary_verified_one(
        tmp_path: Path) -> None:
    """GitHub's /user has no email when the user keeps it private: the engine then calls
    GET /user/emails with the same Bearer token (scope user:email, asked in the authorization
    URL) and takes the primary verified address, not the first one listed."""
    provider = Provider(CASES[0][2], CASES[0][3], GITHUB_PRIVATE_USER, emails=GITHUB_EMAILS)
    signins, vault = _signins(tmp_path, "github", provider)
    url = await signins.start("github", "s1", NOW, key="")
    assert set(_query(url)["scope"].split()) == {"read:user", "user:email"}
    result = await signins.complete("github", {"code": "c", "state": _query(url)["state"]}, NOW + 1000)
    assert (result.subject, result.username, result.email) == ("583231", "octocat", "octocat@example.com")
    exchange, me, emails = provider.requests
    assert (me.method, str(me.url)) == ("GET", "https://api.github.com/user")
    assert (emails.method, str(emails.url)) == ("GET", GITHUB_EMAILS_URL)
    assert emails.headers["authorization"] == f"Bearer {TOKEN}"
    assert emails.headers["accept"] == "application/json"
    assert result.address == vault.address_of(Identity("github", "583231"))


@pytest.mark.parametrize(("emails", "status"), [
    ([{"email": "octocat@example.com", "primary": True, "verified": False}], 200),  # unverified
    ([{"email": "octocat@example.com", "primary": "yes", "verified": True}], 200),
    ({"email": "octocat@example.com"}, 200),  # not a list
    (GITHUB_EMAILS, 403),  # no user:email scope granted
    ([{"email": "x@example.com", "primary": False, "verified": True}] * 200
     + [{"email": "late@example.com", "primary": True, "verified": True}], 200),  # past the bound
])
async def test_github_without_a_primary_verified_email_signs_in_with_none(
        tmp_path: Path, emails: Any, status: int) -> None:
    provider = Provider(CASES[0][2], CASES[0][3], GITHUB_PRIVATE_USER, emails=emails, emails_status=status)
    signins, _ = _signins(tmp_path, "github", provider)
    state = _query(await signins.start("github", "s1", NOW, key=""))["state"]
    result = await signins.complete("github", {"code": "c", "state": state}, NOW + 1000)
    assert (result.subject, result.email) == ("583231", "")
    assert str(provider.requests[-1].url) == GITHUB_EMAILS_URL


async def test_a_wrong_state_refuses_before_any_request(tmp_path: Path) -> None:
    provider = Provider(CASES[0][2], CASES[0][3], GITHUB_USER)
    signins, vault = _signins(tmp_path, "github", provider)
    state = _query(await signins.start("github", "s1", NOW, key=""))["state"]
    with pytest.raises(SocialFailure, match="state"):
        await signins.complete("github", {"code": "c", "state": state + "x"}, NOW + 1000)
    with pytest.raises(SocialFailure, match="state"):  # another provider's callback
        await signins.complete("discord", {"code": "c", "state": state}, NOW + 1000)
    assert provider.requests == []
    assert vault.address_of(Identity("github", "583231")) is None


async def test_github_refusing_the_code_with_http_200_is_refused(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"error": "bad_verification_code"})
    signins, _ = _signins(tmp_path, "github", handler)
    state = _query(await signins.start("github", "s1", NOW, key=""))["state"]
    with pytest.raises(SocialFailure, match="bad_verification_code"):
        await signins.complete("github", {"code": "c", "state": state}, NOW + 1000)


async def test_userinfo_url_and_fields_override_the_built_in_mapping(tmp_path: Path) -> None:
    provider = Provider(CASES[0][2], "https://ghe.example/api/v3/user", {"sub": "u-7", "nick": "ann"})
    signins, _ = _signins(tmp_path, "github", provider, userinfo_url="https://ghe.example/api/v3/user",
                          id_field="sub", username_field="nick")
    state = _query(await signins.start("github", "s1", NOW, key=""))["state"]
    result = await signins.complete("github", {"code": "c", "state": state}, NOW + 1000)
    assert (result.subject, result.username) == ("u-7", "ann")
    assert str(provider.requests[-1].url) == "https://ghe.example/api/v3/user"
    # the answer had no email, yet the token is not sent to github.com's built-in email list
    assert result.email == "" and all("api.github.com" not in str(r.url) for r in provider.requests)



def test_the_operator_config_checks_each_kind() -> None:
    """`[embedded.socials.<name>]`: kind "oidc" needs its issuer and takes no user endpoint;
    kind "oauth2" needs only the client (the built-in endpoints and mapping)."""
    assert SocialSection(kind="oauth2", client_id="c").issuer == ""
    with pytest.raises(ValidationError, match="needs its issuer"):
        SocialSection(client_id="c")
    with pytest.raises(ValidationError, match="oauth2"):
        SocialSection(issuer="https://accounts.google.com", client_id="c", userinfo_url="https://x")
