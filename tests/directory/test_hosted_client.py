"""The hosted directory client: the exact requests it sends (behaviour.md §7: projectId, st, sv)."""

from __future__ import annotations

import httpx
import pytest

from modalcore.directory.backend.hosted import IMAGE_TIMEOUT_S, HostedDirectory
from modalcore.directory.domain.query import WalletQuery
from modalcore.directory.domain.wallets import DirectoryError

BASE = "https://dir.example/"
RAINBOW = {"id": "1ae92b26", "name": "Rainbow", "image_id": "7a33d7f1", "rdns": "me.rainbow",
           "mobile_link": "rainbow://", "desktop_link": None, "webapp_link": "", "chains": ["eip155:1"],
           "homepage": "https://rainbow.me", "order": 40}


def _client(seen: list[httpx.Request], response: httpx.Response) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return response

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_get_wallets_sends_every_parameter_in_order() -> None:
    seen: list[httpx.Request] = []
    async with _client(seen, httpx.Response(200, json={"data": [RAINBOW], "count": 1})) as http:
        body = await HostedDirectory(http, BASE, "proj1").get_wallets(
            page=2, entries=40, include=["a", "b"], exclude=["c"], search=" rain ", badge_type="certified",
            chains=["eip155:1", "eip155:10"])
    assert body["count"] == 1
    request = seen[0]
    assert request.method == "GET"
    assert str(request.url) == (
        "https://dir.example/getWallets?projectId=proj1&st=html-wagmi-4.2.2&sv=4&page=2&entries=40"
        "&include=a%2Cb&exclude=c&search=rain&badge_type=certified&chains=eip155%3A1%2Ceip155%3A10")


async def test_empty_parameters_are_skipped() -> None:
    seen: list[httpx.Request] = []
    async with _client(seen, httpx.Response(200, json={"data": [], "count": 0})) as http:
        await HostedDirectory(http, BASE, "proj1", st="appkit", sv="html-core-1").get_wallets(page=1, entries=4)
    assert dict(seen[0].url.params) == {"projectId": "proj1", "st": "appkit", "sv": "html-core-1",
                                        "page": "1", "entries": "4"}


async def test_a_page_for_a_session_validates_records_and_applies_the_platform_rules() -> None:
    extension = {**RAINBOW, "id": "ext", "name": "Extension", "rdns": "x.ext", "mobile_link": None}
    broken = {"id": "", "name": "No id"}
    seen: list[httpx.Request] = []
    answer = httpx.Response(200, json={"data": [RAINBOW, extension, broken, "junk"], "count": 321})
    async with _client(seen, answer) as http:
        page = await HostedDirectory(http, BASE, "p").wallets(WalletQuery(entries=40, mobile=True))
    assert [w.name for w in page.data] == ["Rainbow"]  # the extension has no mobile link
    assert page.count == 321  # as the directory counted it
    assert page.data[0].webapp_link is None and page.data[0].chains == ("eip155:1",)
    assert "mobile" not in seen[0].url.params  # platform facts never leave the engine


async def test_non_200_raises_with_the_status_code() -> None:
    async with _client([], httpx.Response(503)) as http:
        with pytest.raises(DirectoryError, match="^HTTP status code: 503$"):
            await HostedDirectory(http, BASE, "p").get_wallets(page=1, entries=40)


async def test_image_calls_use_their_paths_and_the_preload_timeout() -> None:
    seen: list[httpx.Request] = []
    png = httpx.Response(200, content=b"\x89PNG", headers={"content-type": "image/png"})
    async with _client(seen, png) as http:
        client = HostedDirectory(http, BASE, "proj1")
        assert await client.image("wallet", "7a33d7f1") == (b"\x89PNG", "image/png")
        await client.image("asset", "a/b")
        await client.image("currency", "usd")
        await client.image("token", "eth")
    assert [r.url.raw_path.decode().split("?")[0] for r in seen] == ["/getWalletImage/7a33d7f1", "/public/getAssetImage/a%2Fb",
                                          "/public/getCurrencyImage/usd", "/public/getTokenImage/eth"]
    assert all(dict(r.url.params) == {"projectId": "proj1", "st": "html-wagmi-4.2.2", "sv": "4"} for r in seen)
    assert seen[0].extensions["timeout"]["read"] == IMAGE_TIMEOUT_S == 2.0


async def test_an_answer_that_is_not_an_image_is_refused() -> None:
    async with _client([], httpx.Response(200, text="<html>", headers={"content-type": "text/html"})) as http:
        with pytest.raises(DirectoryError):
            await HostedDirectory(http, BASE, "p").image("wallet", "x")
