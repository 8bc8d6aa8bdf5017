"""Social sign-in (issue 15 §2): authorization code + PKCE against a real OpenID provider
(panva's oidc-provider run by Node), state and nonce checked, ID token signature verified."""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx
import pytest

from modalcore_dev.devoidc import DevOidcProvider
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.oidc import (
    OidcError,
    Pending,
    ProviderConfig,
    begin,
    check_callback,
    discover,
    finish,
)

REDIRECT = "http://127.0.0.1:9/embedded/oidc/callback/google"


@pytest.fixture(scope="module")
def provider() -> Iterator[DevOidcProvider]:
    running = DevOidcProvider(REDIRECT).start()
    yield running
    running.stop()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=30) as client:
        yield client


@pytest.fixture
async def config(provider: DevOidcProvider, http: httpx.AsyncClient) -> ProviderConfig:
    return await discover(http, "google", provider.issuer, provider.client_id, REDIRECT)


async def sign_in_at_provider(url: str, login: str) -> dict[str, str]:
    """What the visitor does in the popup: the provider's own login and consent pages, driven
    over HTTP with cookies, until the provider redirects to our callback."""
    async with httpx.AsyncClient(timeout=30, follow_redirects=False) as browser:
        response = await browser.get(url)
        for _ in range(12):
            if response.status_code in (302, 303):
                location = urljoin(str(response.url), response.headers["location"])
                if location.startswith(REDIRECT):
                    return dict(parse_qsl(urlsplit(location).query))
                response = await browser.get(location)
                continue
            assert response.status_code == 200, response.text[:300]
            action = re.search(r'<form[^>]*action="([^"]+)"', response.text)
            prompt = re.search(r'name="prompt" value="(\w+)"', response.text)
            assert action and prompt
            form = {"prompt": prompt.group(1)}
            if prompt.group(1) == "login":
                form.update(login=login, password="any")
            response = await browser.post(urljoin(str(response.url), action.group(1)), data=form)
        raise AssertionError("the provider never redirected to the callback")


async def test_social_sign_in_through_a_real_provider_gives_a_stable_address(
        config: ProviderConfig, http: httpx.AsyncClient, tmp_path: Path) -> None:
    vault = KeyVault(tmp_path / "keys.sqlite", MasterKey(b"m" * 32))
    addresses = []
    for _ in range(2):
        pending, url = begin(config, os.urandom(96))
        assert "code_challenge_method=S256" in url and f"state={pending.state}" in url
        params = await sign_in_at_provider(url, "alice")
        signed = await finish(http, config, pending, params, int(time.time()))
        assert (signed.provider, signed.subject, signed.email, signed.username) == (
            "google", "alice", "alice@oidc.test", "alice")
        addresses.append(vault.get_or_create(Identity("google", signed.subject), 0))
    assert addresses[0] == addresses[1]
    other = await sign_in_at_provider(begin(config, os.urandom(96))[1], "bob")
    assert other["state"]  # bob's sign-in is a different identity
    pending, url = begin(config, os.urandom(96))
    bob = await finish(http, config, pending, await sign_in_at_provider(url, "bob"),
                       int(time.time()))
    assert vault.get_or_create(Identity("google", bob.subject), 0) != addresses[0]


async def test_forged_state_is_refused_and_the_real_callback_still_works(
        config: ProviderConfig, http: httpx.AsyncClient) -> None:
    pending, url = begin(config, os.urandom(96))
    params = await sign_in_at_provider(url, "carol")
    with pytest.raises(OidcError, match=r"\(state\)"):
        await finish(http, config, pending, {**params, "state": "forged"}, int(time.time()))
    with pytest.raises(OidcError, match=r"\(state\)"):
        await finish(http, config, pending, {k: v for k, v in params.items() if k != "state"},
                     int(time.time()))
    signed = await finish(http, config, pending, params, int(time.time()))
    assert signed.subject == "carol"


async def test_a_code_is_redeemed_once(config: ProviderConfig, http: httpx.AsyncClient) -> None:
    pending, url = begin(config, os.urandom(96))
    params = await sign_in_at_provider(url, "dave")
    await finish(http, config, pending, params, int(time.time()))
    with pytest.raises(OidcError, match="invalid_grant"):
        await finish(http, config, pending, params, int(time.time()))


async def test_wrong_nonce_is_refused(config: ProviderConfig, http: httpx.AsyncClient) -> None:
    pending, url = begin(config, os.urandom(96))
    params = await sign_in_at_provider(url, "erin")
    with pytest.raises(OidcError, match="nonce"):
        await finish(http, config, replace(pending, nonce="another-sign-in"), params,
                     int(time.time()))


async def test_the_provider_enforces_pkce(config: ProviderConfig,
                                          http: httpx.AsyncClient) -> None:
    pending, url = begin(config, os.urandom(96))
    params = await sign_in_at_provider(url, "frank")
    with pytest.raises(OidcError, match="invalid_grant"):
        await finish(http, config, replace(pending, code_verifier="x" * 43), params,
                     int(time.time()))


async def test_id_token_signed_by_another_key_is_refused(
        config: ProviderConfig, http: httpx.AsyncClient, provider: DevOidcProvider) -> None:
    # the same provider's token checked against a key set the provider never used
    imposter = DevOidcProvider(REDIRECT).start()
    try:
        other_jwks = f"{imposter.issuer}/jwks"
        pending, url = begin(config, os.urandom(96))
        params = await sign_in_at_provider(url, "grace")
        with pytest.raises(OidcError, match="signature does not verify"):
            await finish(http, replace(config, jwks_uri=other_jwks), pending, params,
                         int(time.time()))
    finally:
        imposter.stop()


async def test_expired_id_token_is_refused(config: ProviderConfig,
                                           http: httpx.AsyncClient) -> None:
    pending, url = begin(config, os.urandom(96))
    params = await sign_in_at_provider(url, "heidi")
    with pytest.raises(OidcError, match="expired"):
        await finish(http, config, pending, params, int(time.time()) + 10 * 24 * 3600)


async def test_provider_error_and_other_issuer_in_the_callback(config: ProviderConfig) -> None:
    pending = Pending("google", "s" * 43, "n" * 43, "v" * 43)
    with pytest.raises(OidcError, match="refused the sign-in \\(access_denied\\)"):
        check_callback(config, pending, {"state": pending.state, "error": "access_denied"})
    with pytest.raises(OidcError, match="another issuer"):
        check_callback(config, pending, {"state": pending.state, "code": "c",
                                         "iss": "http://127.0.0.1:1"})
    assert check_callback(config, pending, {"state": pending.state, "code": "c"}) == "c"


def test_begin_uses_the_randomness_passed_in(config: ProviderConfig) -> None:
    first = begin(config, bytes(96))
    assert first == begin(config, bytes(96))
    assert first[0].state != begin(config, b"\x01" * 96)[0].state
    with pytest.raises(ValueError):
        begin(config, b"short")


@pytest.mark.parametrize("name", ["farcaster", "telegram", "Google", ""])
def test_only_the_spec_social_providers_are_configured(config: ProviderConfig, name: str) -> None:
    with pytest.raises(OidcError, match="social provider must be one of"):
        replace(config, name=name)
