"""Issue 28 item 4: every OAuth social provider behaviour.md §5 allows really signs in. One local OpenID
provider process (panva's oidc-provider) stands in for all six, one client per provider name
(`DevOidcProvider.for_socials`); each button on Connect goes through its own authorization URL,
the provider's login and consent pages and the engine's callback for that provider, and ends
connected with the key of that provider's identity."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from modalcore_dev.devoidc import DevOidcProvider
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore.rules.embedded import SOCIAL_PROVIDERS
from modalcore.server.app import create_app
from modalcore.server.config import parse_config
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, RunningServer, serve_app

from .device import DeviceKey
from .social_frame import authorization_url, confirm
from .test_social_server import _account, popup


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def provider(port: int) -> Iterator[DevOidcProvider]:
    running = DevOidcProvider.for_socials(f"http://127.0.0.1:{port}", SOCIAL_PROVIDERS).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("socials")


@pytest.fixture(scope="module")
def engine(port: int, provider: DevOidcProvider, folder: Path) -> Iterator[RunningServer]:
    key = folder / "master.key"
    key.write_text(MasterKey.generate().hex())
    config = parse_config({
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": str(folder / "siwx.db"), "key_file": str(folder / "engine.key")},
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key),
                     "public_url": f"http://127.0.0.1:{port}", "socials": provider.socials_section()},
    })
    with serve_app(create_app(config), port) as running:
        yield running


async def _authorization_url(client: Client, social: str, base: str, device: DeviceKey) -> str:
    frames = await client.join(opts={"networks": ["eip155:1"]})  # the default socials (behaviour.md §1)
    tree = str(next(f for f in frames if f["t"] == "snapshot")["tree"])
    await client.intent("host", "open", {})
    await client.quiet(0.2)
    if f"connect/social/{social}" not in tree:  # not on Connect: under "…", All Socials
        await client.intent("connect/social/more", "press")
        await client.quiet(0.2)
    await client.intent(f"connect/social/{social}", "press")
    # ConnectingSocial's engine-origin frame asks the provider's URL with its key (the host
    # page never sees it)
    return await authorization_url(client, base, device)


@pytest.mark.parametrize("social", SOCIAL_PROVIDERS)
async def test_each_oauth_provider_signs_in_through_its_own_client_of_the_local_provider(
        engine: RunningServer, provider: DevOidcProvider, folder: Path, social: str) -> None:
    async with engine.client() as client:
        device = DeviceKey()
        url = await _authorization_url(client, social, engine.http_url, device)
        query = parse_qs(urlparse(url).query)
        assert url.startswith(provider.issuer)
        assert query["client_id"] == [f"modalcore-{social}"]
        assert query["redirect_uri"] == [f"{engine.http_url}/embedded/oidc/callback/{social}"]
        answer = await popup(url, f"pat-{social}")
        assert answer.status_code == 200
        assert (await confirm(engine.http_url, answer, device)).status_code == 200
        frames = await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
        account = _account(frames)
    assert account["connector"] == "ID_AUTH"
    vault = KeyVault(folder / "embedded.db", MasterKey.parse((folder / "master.key").read_text()))
    # the key is that provider's identity's: the same login at another provider is someone else
    assert account["address"].lower() == (vault.address_of(Identity(social, f"pat-{social}")) or "").lower()


def test_the_demo_offers_every_oauth_provider_as_its_own_client() -> None:
    """`make run`'s [embedded.socials]: all six, each its own client id of the one issuer."""
    made = DevOidcProvider.for_socials("http://127.0.0.1:8700", SOCIAL_PROVIDERS)
    made.issuer = "http://127.0.0.1:9"
    section = made.socials_section()
    assert sorted(section) == sorted(SOCIAL_PROVIDERS)
    assert {entry["client_id"] for entry in section.values()} == {f"modalcore-{p}" for p in SOCIAL_PROVIDERS}
