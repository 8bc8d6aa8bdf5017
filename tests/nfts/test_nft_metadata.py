"""Issue 28 item 6: an NFT's image from its token URI without a request (on-chain metadata), and
the scan reading `tokenURI` for the tokens it keeps; a token URI naming a server is not fetched."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any
from urllib.parse import quote

import httpx
from eth_abi.abi import encode

from modalcore.services.backend.nft_metadata import image_from_token_uri, token_uri_call
from modalcore.services.backend.history import TRANSFER_TOPIC
from modalcore.services.backend.nfts import address_topic, fetch_nfts

SVG = "data:image/svg+xml;base64," + base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode()


def _b64_json(data: object) -> str:
    return "data:application/json;base64," + base64.b64encode(json.dumps(data).encode()).decode()


def test_on_chain_metadata_gives_its_image() -> None:
    assert image_from_token_uri(_b64_json({"name": "Punk", "image": SVG})) == SVG
    encoded = "data:application/json;utf8," + quote(json.dumps({"image": "https://a.example/1.png"}))
    assert image_from_token_uri(encoded) == "https://a.example/1.png"
    assert image_from_token_uri(_b64_json({"image_url": "https://a.example/2.png"})) == "https://a.example/2.png"
    assert image_from_token_uri(SVG) == SVG  # a token URI that is itself an image
    assert token_uri_call(1) == "0xc87b56dd" + "0" * 63 + "1"


def test_what_gives_no_image_without_a_request() -> None:
    for uri in ("https://example.invalid/dcol/0", "ipfs://bafy/0", "", "data:application/json;base64,!!!",
                _b64_json(["not", "a", "map"]), _b64_json({"image": "http://plain.example/x.png"}),
                _b64_json({"image": "ipfs://bafy/x.png"}), _b64_json({"image": "javascript:alert(1)"}),
                _b64_json({"image": 'https://a.example/"><script>'}),
                _b64_json({"image": "data:image/svg+xml;base64," + "A" * 20_000}),
                "data:application/json," + "x" * 70_000):
        assert image_from_token_uri(uri) == "", uri


def _abi_string(text: str) -> str:
    return "0x" + encode(["string"], [text]).hex()


def test_the_scan_reads_token_uris_and_keeps_the_images() -> None:
    me = "0x" + "ab" * 20
    contract = "0x" + "cd" * 20
    calls: list[dict[str, Any]] = []

    def log(token: int) -> dict[str, Any]:
        return {"address": contract, "topics": [TRANSFER_TOPIC, address_topic("0x" + "00" * 20), address_topic(me),
                                                 "0x" + format(token, "064x")],
                "blockNumber": "0x1", "transactionIndex": "0x0", "logIndex": hex(token), "transactionHash": "0x1"}

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        results = []
        for call in body:
            calls.append(call)
            method, params = call["method"], call["params"]
            if method == "eth_blockNumber":
                result: Any = "0x5"
            elif method == "eth_getLogs":
                result = [log(0), log(1)] if params[0]["topics"][1] is None else []
            else:
                data = params[0]["data"]
                result = {token_uri_call(0): _abi_string(_b64_json({"image": SVG})),
                          token_uri_call(1): _abi_string("https://example.invalid/dcol/1")}.get(data, _abi_string("Demo"))
            results.append({"jsonrpc": "2.0", "id": call["id"], "result": result})
        return httpx.Response(200, json=results)

    async def go() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
            return await fetch_nfts(http, rpc_url="http://node.example", address=me)

    result = asyncio.run(go())
    assert [(item["token_id"], item["image"]) for item in result["items"]] == [("0", SVG), ("1", "")]
    assert [c["params"][0]["data"] for c in calls if c["method"] == "eth_call"][-2:] == [
        token_uri_call(0), token_uri_call(1)]
