"""GET /v1/sessions/{address} and POST /v1/sessions/{address}/revoke through a TestClient."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # starlette 1.x suggests httpx2 for its TestClient
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from modalcore.siwx.backend.http import revoke_text, routes

from .conftest import ADDRESS_0, ADDRESS_1, CHAIN_ID, DOMAIN, KEY_0, KEY_1, Siwx, sign


@pytest.fixture
def client(siwx: Siwx) -> TestClient:
    app = Starlette(routes=routes(siwx.store, engine_address=siwx.signer.address, clock=siwx.clock.now_ms))
    return TestClient(app)


async def _signed_in(siwx: Siwx, **overrides: Any) -> dict[str, Any]:
    result = await siwx.sign_in(**overrides)
    assert result["ok"], result
    return result


async def test_list_sessions(siwx: Siwx, client: TestClient) -> None:
    first = await _signed_in(siwx)
    second = await _signed_in(siwx, domain="shop.example.com")
    # a session for another domain is verified against that domain
    assert second["ok"]

    everything = client.get(f"/v1/sessions/{ADDRESS_0}")
    assert everything.status_code == 200
    listed = everything.json()
    assert {s["id"] for s in listed} == {first["session"]["id"], second["session"]["id"]}
    assert set(listed[0]) == {"id", "data", "message", "signature", "cacao"}

    on_domain = client.get(f"/v1/sessions/{ADDRESS_0.lower()}", params={"domain": DOMAIN}).json()
    assert on_domain == [first["session"]]
    assert client.get(f"/v1/sessions/{ADDRESS_0}", params={"chainId": f"eip155:{CHAIN_ID}"}).json() \
        and client.get(f"/v1/sessions/{ADDRESS_0}", params={"chainId": "1"}).json() == []
    assert client.get(f"/v1/sessions/{ADDRESS_1}").json() == []


def test_list_rejects_bad_input(client: TestClient) -> None:
    assert client.get("/v1/sessions/0x1234").status_code == 400
    assert client.get(f"/v1/sessions/{ADDRESS_0}", params={"chainId": "abc"}).status_code == 400


async def test_revoke_with_the_session_token(siwx: Siwx, client: TestClient) -> None:
    signed = await _signed_in(siwx)
    pci = signed["session"]["id"]
    response = client.post(f"/v1/sessions/{ADDRESS_0}/revoke", json={"pci": pci, "signature": signed["token"]})
    assert response.status_code == 200
    assert response.json() == {"pci": pci, "revoked": True}
    assert client.get(f"/v1/sessions/{ADDRESS_0}").json() == []
    assert await siwx.sessions() == []


async def test_revoke_with_a_signature_by_the_account(siwx: Siwx, client: TestClient) -> None:
    keep = await _signed_in(siwx)
    drop = await _signed_in(siwx)
    pci = drop["session"]["id"]
    response = client.post(
        f"/v1/sessions/{ADDRESS_0}/revoke", json={"pci": pci, "signature": sign(revoke_text(pci), KEY_0)}
    )
    assert response.status_code == 200
    assert [s["id"] for s in client.get(f"/v1/sessions/{ADDRESS_0}").json()] == [keep["session"]["id"]]


async def test_revoke_refusals(siwx: Siwx, client: TestClient) -> None:
    mine = await _signed_in(siwx)
    other = await _signed_in(siwx)
    pci = mine["session"]["id"]
    url = f"/v1/sessions/{ADDRESS_0}/revoke"

    # someone else's signature over the revoke text
    assert client.post(url, json={"pci": pci, "signature": sign(revoke_text(pci), KEY_1)}).status_code == 403
    # the account's signature over another text
    assert client.post(url, json={"pci": pci, "signature": sign(f"revoke {other['session']['id']}")}).status_code == 403
    # the token of another session
    assert client.post(url, json={"pci": pci, "signature": other["token"]}).status_code == 403
    # a tampered token
    tampered = mine["token"][:5] + ("A" if mine["token"][5] != "A" else "B") + mine["token"][6:]
    assert client.post(url, json={"pci": pci, "signature": tampered}).status_code == 403
    # garbage
    assert client.post(url, json={"pci": pci, "signature": "0x1234"}).status_code == 403
    # the session belongs to another address, or does not exist
    other_url = f"/v1/sessions/{ADDRESS_1}/revoke"
    assert client.post(other_url, json={"pci": pci, "signature": sign(revoke_text(pci), KEY_1)}).status_code == 404
    assert client.post(url, json={"pci": "nope", "signature": sign(revoke_text("nope"))}).status_code == 404
    # malformed bodies
    assert client.post(url, json={"pci": pci}).status_code == 400
    assert client.post(url, json=[pci]).status_code == 400
    assert client.post(url, content=b"{not json").status_code == 400
    assert client.post(url, content=b"\xff\xfe").status_code == 400
    assert client.post(url, json={"pci": pci, "signature": "0x" + "ab" * 20_000}).status_code == 413
    assert client.post("/v1/sessions/0xzz/revoke", json={"pci": pci, "signature": "x"}).status_code == 400

    assert len(client.get(f"/v1/sessions/{ADDRESS_0}").json()) == 2


async def test_expired_token_cannot_revoke(siwx: Siwx, client: TestClient) -> None:
    signed = await _signed_in(siwx, ttl_ms=60_000)
    siwx.clock.advance(60_000)
    response = client.post(
        f"/v1/sessions/{ADDRESS_0}/revoke",
        json={"pci": signed["session"]["id"], "signature": signed["token"]},
    )
    assert response.status_code == 403


async def test_without_engine_address_only_account_signatures_revoke(siwx: Siwx) -> None:
    client = TestClient(Starlette(routes=routes(siwx.store, clock=siwx.clock.now_ms)))
    signed = await _signed_in(siwx)
    pci = signed["session"]["id"]
    url = f"/v1/sessions/{ADDRESS_0}/revoke"
    assert client.post(url, json={"pci": pci, "signature": signed["token"]}).status_code == 403
    assert client.post(url, json={"pci": pci, "signature": sign(revoke_text(pci))}).status_code == 200
