"""The local onramp page (demo mode only): served only with `devchain_proxy` and `public_url`;
an unknown order is a 404; an open order shows what is bought and the Complete purchase form."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.testclient import TestClient

from modalcore.server.config import dev_networks, parse_config
from modalcore_dev.onramp_page import local_onramp, routes

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


def test_a_purchase_completes_only_from_its_own_page_with_the_orders_token() -> None:
    """Issue 27: a cross-site form POST (another origin, or marked cross-site by the browser), a
    POST without the page's token or with another order's is refused (403) and sends nothing; the
    page's own form goes through to the transfer (here the chain is absent: 502, it was tried)."""
    import re

    engine = "http://127.0.0.1:8000"
    provider = local_onramp(config(devchain_proxy=True, public_url=engine))
    assert provider is not None
    import httpx

    app = Starlette(routes=routes(provider))
    app.state.http = httpx.AsyncClient(timeout=5)
    client = TestClient(app, base_url=engine)
    url = provider.order_url(USER, "eip155:31337", "TUSD", "USD", "100")
    other = provider.order_url(USER, "eip155:31337", "TUSD", "USD", "50")
    page = client.get(url.removeprefix(engine)).text
    found = re.search(r'name="token" value="([0-9a-f]{64})"', page)
    assert found is not None
    token = found.group(1)
    order_id = url.rsplit("=", 1)[-1]
    other_token = re.search(r'value="([0-9a-f]{64})"', client.get(other.removeprefix(engine)).text)
    assert other_token is not None and other_token.group(1) != token
    action = f"/onramp/local/complete?order={order_id}"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    refused = [
        client.post(action, content="", headers={**form, "Origin": engine}),
        client.post(action, content=f"token={token}", headers={**form, "Origin": "https://evil.example"}),
        client.post(action, content=f"token={token}", headers={**form, "Origin": engine, "Sec-Fetch-Site": "cross-site"}),
        client.post(action, content=f"token={other_token.group(1)}", headers={**form, "Origin": engine}),
        client.post(action, content=f"token={token}&token={token}", headers={**form, "Origin": engine}),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert "only from its own page" in refused[0].text
    assert provider.orders[order_id].tx == ""
    own = client.post(action, content=f"token={token}",
                      headers={**form, "Origin": engine, "Sec-Fetch-Site": "same-origin"})
    assert own.status_code == 502 and "The transfer failed" in own.text


def test_the_onramp_page_carries_the_engines_security_headers(tmp_path: Path) -> None:
    from modalcore.server.app import create_app
    from modalcore_dev.rigs import dev_rigs

    demo = config(devchain_proxy=True, public_url="http://127.0.0.1:8000", secret="s",
                  analytics={"mode": "off"}, names={"db": ":memory:"},
                  siwx={"db": ":memory:", "key_file": str(tmp_path / "engine.key")})
    app = create_app(demo, rigs=dev_rigs(demo))
    with TestClient(app) as client:
        page = client.get("/onramp/local?order=nope")
    assert page.status_code == 404
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
