"""The local onramp page (demo mode only): served only with `devchain_proxy` and `public_url`;
an unknown order is a 404; an open order shows what is bought and the Complete purchase form."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.testclient import TestClient

from modalcore.server.config import dev_networks, parse_config
from modalcore.server.onramp_local import local_onramp, routes

USER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"


def config(**extra: object):  # type: ignore[no-untyped-def]
    return parse_config({"projects": {"demo": {}}, "networks": dev_networks({31337: "http://127.0.0.1:1"}),
                         **extra})


def test_the_local_provider_exists_only_in_demo_mode() -> None:
    assert local_onramp(config()) is None
    assert local_onramp(config(devchain_proxy=True)) is None
    assert local_onramp(config(public_url="http://127.0.0.1:8000")) is None
    provider = local_onramp(config(devchain_proxy=True, public_url="http://127.0.0.1:8000"))
    assert provider is not None and list(provider.networks) == ["eip155:31337"]


def test_the_page_shows_an_open_order_and_refuses_an_unknown_one() -> None:
    provider = local_onramp(config(devchain_proxy=True, public_url="http://127.0.0.1:8000"))
    assert provider is not None
    url = provider.order_url(USER, "eip155:31337", "TUSD", "USD", "100")
    client = TestClient(Starlette(routes=routes(provider)))
    page = client.get(url.removeprefix("http://127.0.0.1:8000"))
    assert page.status_code == 200
    assert "99 TUSD for 100 USD" in page.text and "Complete purchase" in page.text and USER in page.text
    assert client.get("/onramp/local?order=nope").status_code == 404
    assert client.post("/onramp/local/complete?order=nope").status_code == 404
