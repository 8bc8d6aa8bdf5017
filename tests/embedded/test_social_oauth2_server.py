"""Social sign-in with an OAuth 2.0 provider that issues no ID token (issue 15: GitHub, X,
Discord), through the running engine against a real local provider (panva's oidc-provider)
configured as `kind = "oauth2"`: authorization code + PKCE + state, no nonce; the engine
exchanges the code and asks the provider's user endpoint (`/me`, answering `sub`) with the
access token. The same user gets the same address; the username is shown in Account; a forged
state or a failing user endpoint connects nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore_dev.devoidc import DevOidcProvider
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore.server.app import create_app
from modalcore.server.config import parse_config
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, RunningServer, serve_app

from .device import DeviceKey
from .social_frame import authorization_url, confirm

from .test_social_server import popup


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def provider(port: int) -> Iterator[DevOidcProvider]:
    running = DevOidcProvider(f"http://127.0.0.1:{port}/embedded/oidc/callback/github").start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("oauth2")


def _config(port: int, provider: DevOidcProvider, folder: Path, userinfo_url: str, **more: str) -> Any:
    key = folder / "master.key"
    if not key.exists():
        key.write_text(MasterKey.generate().hex())
    return parse_config({
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": str(folder / "siwx.db"), "key_file": str(folder / "engine.key")},
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key),
                     "public_url": f"http://127.0.0.1:{port}",
                     "socials": {"github": {
                         "kind": "oauth2", "client_id": provider.client_id,
                         "authorization_endpoint": f"{provider.issuer}/auth",
                         "token_endpoint": f"{provider.issuer}/token",
                         "userinfo_url": userinfo_url, "scope": "openid profile",
                         "id_field": "sub", "username_field": "preferred_username", **more}}},
    })


@pytest.fixture(scope="module")
def engine(port: int, provider: DevOidcProvider, folder: Path) -> Iterator[RunningServer]:
    with serve_app(create_app(_config(port, provider, folder, f"{provider.issuer}/me")), port) as running:
        yield running


def _account(frames: list[dict[str, Any]]) -> dict[str, Any]:
    found = [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"]
    return found[-1] if found else {}


async def _start(client: Client, base: str, device: DeviceKey | None = None) -> str:
    await client.join(opts={"networks": ["eip155:1"], "features": {"socials": ["github"]}})
    await client.intent("host", "open", {})
    await client.quiet(0.2)
    await client.intent("connect/social/github", "press")
    url = await authorization_url(client, base, device or DeviceKey())
    assert url.startswith("http://127.0.0.1:")
    assert "code_challenge_method=S256" in url and "state=" in url and "nonce=" not in url
    return url


async def test_oauth2_sign_in_maps_the_user_endpoint_id_to_the_same_address_and_shows_the_username(
        engine: RunningServer, folder: Path) -> None:
    addresses = []
    for _ in range(2):
        async with engine.client() as client:
            device = DeviceKey()
            answer = await popup(await _start(client, engine.http_url, device), "octo")
            assert answer.status_code == 200
            assert (await confirm(engine.http_url, answer, device)).status_code == 200
            frames = await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
            assert _account(frames)["connector"] == "ID_AUTH"
            addresses.append(_account(frames)["address"])
            await client.quiet(0.5)
            assert "Signed in with GitHub as octo" in str(client.frames)
    assert addresses[0] == addresses[1]
    vault = KeyVault(folder / "embedded.db", MasterKey.parse((folder / "master.key").read_text()))
    assert vault.address_of(Identity("github", "octo")) == addresses[0]  # github:<id>


async def test_a_forged_state_connects_nothing(engine: RunningServer) -> None:
    async with engine.client() as client:
        url = await _start(client, engine.http_url)
        async with httpx.AsyncClient(timeout=10) as http:
            forged = await http.get(f"{engine.http_url}/embedded/oidc/callback/github",
                                    params={"code": "abc", "state": "forged"})
        assert forged.status_code == 400
        assert not _account(await client.quiet(0.3)).get("isConnected")
        assert "state=" in url


async def test_a_failing_user_endpoint_refuses_with_a_typed_error_and_stores_no_key(
        provider: DevOidcProvider, tmp_path: Path) -> None:
    """The user endpoint answers 404 (a wrong `userinfo_url`): the callback page says the
    sign-in failed, the session gets the failure, and no key is created."""
    port = free_port()
    other = DevOidcProvider(f"http://127.0.0.1:{port}/embedded/oidc/callback/github").start()
    try:
        config = _config(port, other, tmp_path, f"{other.issuer}/no-such-user-endpoint")
        with serve_app(create_app(config), port) as running:
            async with running.client() as client:
                answer = await popup(await _start(client, running.http_url), "mallory")
                assert answer.status_code == 400
                assert "user endpoint refused (HTTP 404)" in answer.text
                assert not _account(await client.quiet(0.3)).get("isConnected")
        vault = KeyVault(tmp_path / "embedded.db", MasterKey.parse((tmp_path / "master.key").read_text()))
        assert vault.address_of(Identity("github", "mallory")) is None
    finally:
        other.stop()


async def test_a_user_answer_without_email_takes_the_primary_verified_one_from_the_email_list(
        tmp_path: Path) -> None:
    """GitHub's private-email path against the real local provider: its user endpoint (`/me`,
    scope without `email`) names no email, so the engine asks the provider's `/user/emails` with
    the access token and the Account view shows the primary verified address."""
    port = free_port()
    other = DevOidcProvider(f"http://127.0.0.1:{port}/embedded/oidc/callback/github").start()
    try:
        config = _config(port, other, tmp_path, f"{other.issuer}/me", emails_url=f"{other.issuer}/user/emails")
        with serve_app(create_app(config), port) as running:
            async with running.client() as client:
                device = DeviceKey()
                answer = await popup(await _start(client, running.http_url, device), "octo")
                assert answer.status_code == 200
                assert (await confirm(running.http_url, answer, device)).status_code == 200
                frames = await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
                assert _account(frames)["connector"] == "ID_AUTH"
                await client.quiet(0.5)
                assert "Signed in with GitHub as octo@oidc.test" in str(client.frames)
        async with httpx.AsyncClient(timeout=10) as http:  # the list wants the access token
            assert (await http.get(f"{other.issuer}/user/emails")).status_code == 401
            forged = await http.get(f"{other.issuer}/user/emails", headers={"Authorization": "Bearer forged"})
            assert forged.status_code == 401
    finally:
        other.stop()
