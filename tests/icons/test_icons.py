"""Issue 28 item 6: brand marks from the icon set (modalcore/icons), served by the engine.

Wallets, tokens, networks and onramp providers the set has a mark for reference the engine's
icon route; what it lacks (the dev chains, the demo's DEMO and TUSD, Meld) keeps a monogram. The
route serves only the set's names, with long cache headers, as an SVG that runs nothing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from modalcore.chains.catalog import SOLANA_LOCAL, catalog
from modalcore.enginetest import Harness
from modalcore.icons import KINDS, ROOT, icon_set, network_mark, token_mark
from modalcore.icons.routes import routes
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env
from modalcore import samples

from ..onramp.test_onramp_rules import on_buy
from ..swap.harness import connected

MONOGRAM = "data:image/svg+xml;base64,"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(Starlette(routes=routes())) as test_client:
        yield test_client


def test_the_route_serves_a_mark_as_an_svg_that_runs_nothing_cached_for_a_year(client: TestClient) -> None:
    response = client.get(icon_set().path("token", "ETH") or "")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert response.headers["access-control-allow-origin"] == "*"
    assert ET.fromstring(response.text).tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize("path", [
    "/icons/token/NOPE.svg", "/icons/token/ETH", "/icons/token/ETH.png", "/icons/nope/ETH.svg",
    "/icons/token/..%2Fmanifest.json", "/icons/token/%2E%2E%2Fwallet%2Fmetamask.svg", "/icons/../icons/LICENSE",
    "/icons/token/manifest.json", "/icons/wallet/LICENSE.svg", "/icons/token/" + "A" * 200 + ".svg",
])
def test_unknown_names_and_paths_out_of_the_set_are_404(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_every_mark_named_in_the_manifest_is_a_well_formed_svg_and_the_path_names_the_set() -> None:
    manifest = json.loads((ROOT / "manifest.json").read_text())
    assert "@web3icons/core" in manifest["source"]
    assert (ROOT / "LICENSE").read_text().count("MIT") >= 1
    for kind in KINDS:
        assert manifest[kind], kind
        for name in manifest[kind].values():
            assert ET.fromstring((ROOT / kind / f"{name}.svg").read_text()).tag.endswith("svg")
    assert token_mark("eth") == f"/icons/token/ETH.svg?v={icon_set().version}"


def test_tokens_with_a_mark_reference_the_route_the_demos_own_tokens_keep_monograms() -> None:
    h = connected()
    assert h.node("account/token/native").p["image"] == token_mark("ETH")
    others = [n for n in h.of_type("token-item") if n.id != "account/token/native"]
    assert [n.p["symbol"] for n in others] == ["DEMO", "TUSD"]
    assert all(n.p["image"].startswith(MONOGRAM) for n in others)


def test_networks_wear_their_marks_and_the_dev_chains_distinct_monograms() -> None:
    ids = ["eip155:1", "eip155:8453", "eip155:10", "eip155:42161", "eip155:137", "eip155:56",
           "eip155:31337", "eip155:31338", SOLANA_LOCAL]
    model = initial_model("test-project", "http://localhost:8000", parse_options({"networks": ids}),
                          Env.model_validate(samples.ENV), [AnnouncedWallet.model_validate(samples.DEV_WALLET)],
                          known_networks=catalog())
    h = Harness(model, wallets=[samples.DEV_WALLET])
    h.host("open", view="Networks")
    images = {n.id.rsplit("/", 1)[-1]: n.p["image"] for n in h.of_type("network-item")}
    for network_id in ids[:6]:
        assert images[network_id] == network_mark(network_id), network_id
    assert images[SOLANA_LOCAL] == network_mark("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")
    assert images["eip155:31337"].startswith(MONOGRAM) and images["eip155:31338"].startswith(MONOGRAM)
    assert images["eip155:31337"] != images["eip155:31338"]  # not one glyph for every network


def test_coinbase_wears_its_mark_meld_its_monogram() -> None:
    h = on_buy()
    assert h.node("onramp/provider/coinbase").p["image"] == icon_set().path("onramp", "coinbase")
    assert h.node("onramp/provider/meld").p["image"].startswith(MONOGRAM)
