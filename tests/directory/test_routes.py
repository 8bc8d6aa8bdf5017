"""The engine's own directory routes (behaviour.md §7) through Starlette's TestClient."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from modalcore.directory.backend.routes import routes
from modalcore.icons import svg
from modalcore.server.app import create_app
from modalcore.server.config import parse_config
from modalcore_testing import make_test_config

PARAMS = {"projectId": "test", "st": "html-wagmi-4.2.2", "sv": "4"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    keys = tmp_path_factory.mktemp("keys")
    config = make_test_config(siwx={"db": ":memory:", "key_file": str(keys / "engine.key")})
    with TestClient(create_app(config)) as test_client:
        yield test_client


def test_get_wallets_answers_data_and_count(client: TestClient) -> None:
    response = client.get("/getWallets", params={**PARAMS, "page": "1", "entries": "40"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"data", "count"} and body["count"] >= 100 and len(body["data"]) == 40
    assert set(body["data"][0]) == {"id", "name", "image_id", "rdns", "mobile_link", "desktop_link",
                                    "webapp_link", "chains"}
    assert body["data"][0]["id"] == "metamask"
    page3 = client.get("/getWallets", params={"page": "3", "entries": "40"}).json()
    assert len(page3["data"]) == body["count"] - 80


def test_get_wallets_search_include_exclude_chains(client: TestClient) -> None:
    rain = client.get("/getWallets", params={"search": "rain"}).json()
    assert [w["name"] for w in rain["data"]] == ["Rainbow"] and rain["count"] == 1
    include = client.get("/getWallets", params={"include": "rainbow,metamask", "exclude": "metamask"}).json()
    assert [w["id"] for w in include["data"]] == ["rainbow"]
    cosmos = client.get("/getWallets", params={"chains": "cosmos:osmosis-1", "entries": "100"}).json()
    assert {"keplr", "leap"} <= {w["id"] for w in cosmos["data"]}
    assert all("cosmos:osmosis-1" in w["chains"] for w in cosmos["data"])


@pytest.mark.parametrize("params", [{"page": "0"}, {"entries": "500"}, {"page": "one"}])
def test_bad_parameters_get_400(client: TestClient, params: dict[str, str]) -> None:
    assert client.get("/getWallets", params=params).status_code == 400


def test_a_wallet_without_an_image_or_a_mark_gets_a_monogram(client: TestClient) -> None:
    response = client.get("/getWalletImage/uniswap", params=PARAMS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in response.headers["content-security-policy"]
    root = ET.fromstring(response.text)
    assert root.get("aria-label") == "Uniswap Wallet"
    again = client.get("/getWalletImage/uniswap")
    assert again.content == response.content  # deterministic


def test_a_wallet_without_an_image_wears_its_mark_from_the_icon_set(client: TestClient) -> None:
    """Issue 28 item 6: Rainbow was a letter on a gradient; the icon set has its mark."""
    response = client.get("/getWalletImage/rainbow", params=PARAMS)
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert response.content == svg("wallet", "rainbow")


def test_an_unknown_id_gets_a_monogram_of_the_given_name(client: TestClient) -> None:
    response = client.get("/getWalletImage/my-own", params={"name": "Zed Wallet"})
    assert response.status_code == 200 and ET.fromstring(response.text).get("aria-label") == "Zed Wallet"


def test_other_image_calls_are_404_without_a_source(client: TestClient) -> None:
    for path in ("/public/getAssetImage/x", "/public/getCurrencyImage/usd", "/public/getTokenImage/eth"):
        assert client.get(path).status_code == 404


def test_local_images_are_served_by_image_id_and_by_wallet_id(tmp_path: Path) -> None:
    wallets = tmp_path / "wallets.json"
    wallets.write_text(json.dumps({"wallets": [
        {"id": "pic", "name": "Pic Wallet", "image_id": "img-1", "chains": ["eip155:1"]},
        {"id": "plain", "name": "Plain", "chains": ["eip155:1"]},
    ]}))
    images = tmp_path / "images"
    images.mkdir()
    (images / "img-1.png").write_bytes(b"\x89PNG-data")
    (images / "net-1.svg").write_text("<svg/>")
    app = Starlette(routes=routes())
    app.state.config = parse_config({"directory": {"file": str(wallets), "images": str(images)}})
    with TestClient(app) as test_client:
        assert test_client.get("/getWalletImage/img-1").content == b"\x89PNG-data"
        by_wallet = test_client.get("/getWalletImage/pic")
        assert by_wallet.content == b"\x89PNG-data" and by_wallet.headers["content-type"] == "image/png"
        assert test_client.get("/getWalletImage/plain").headers["content-type"].startswith("image/svg+xml")
        assert test_client.get("/public/getAssetImage/net-1").text == "<svg/>"
        assert test_client.get("/getWallets").json()["count"] == 2
        assert test_client.get("/public/getAssetImage/..%2Fwallets").status_code == 404


def test_a_hosted_directory_is_proxied_and_falls_back_to_a_monogram() -> None:
    seen: list[httpx.Request] = []

    def hosted(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/getWallets":
            return httpx.Response(200, json={"data": [{"id": "h1", "name": "Hosted One", "image_id": "i1"}],
                                             "count": 1})
        if request.url.path == "/getWalletImage/i1":
            return httpx.Response(200, content=b"webp", headers={"content-type": "image/webp"})
        if request.url.path == "/getWalletImage/slow":
            raise httpx.ReadTimeout("too slow", request=request)
        return httpx.Response(404)

    app = Starlette(routes=routes())
    app.state.config = parse_config({"directory": {"api_url": "https://dir.example", "project_id": "cloud1"}})
    app.state.http = httpx.AsyncClient(transport=httpx.MockTransport(hosted))
    with TestClient(app) as test_client:
        body = test_client.get("/getWallets", params={"search": "one"}).json()
        assert body == {"data": [{"id": "h1", "name": "Hosted One", "image_id": "i1", "rdns": "",
                                  "mobile_link": None, "desktop_link": None, "webapp_link": None,
                                  "chains": []}], "count": 1}
        image = test_client.get("/getWalletImage/i1")
        assert image.content == b"webp" and image.headers["content-type"] == "image/webp"
        slow = test_client.get("/getWalletImage/slow", params={"name": "Slow"})
        assert slow.status_code == 200 and slow.headers["content-type"].startswith("image/svg+xml")
    assert all(r.url.params["projectId"] == "cloud1" for r in seen)
    assert seen[0].url.params["search"] == "one"
