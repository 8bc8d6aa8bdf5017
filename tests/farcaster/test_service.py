"""The engine's Farcaster services (issue 33): the exact requests the client sends the relay,
and the verdict on every answer: a genuine dev-FID sign-in is verified and opens the FID's key;
forged custody, an FID the registry does not give that custody, another nonce, domain or URI, an
expired message or channel, a malformed answer are refused, log one line and store nothing."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from eth_abi.abi import encode
from eth_account import Account
from starlette.testclient import TestClient

from modalcore_dev.farcaster.democlient import DEV_FIDS, DevFid, connect_params, sign_in_message
from modalcore_dev.farcaster.relay import Limits, create_relay_app
from modalcore.farcaster.service import FarcasterSetting, FarcasterSignIns
from modalcore.farcaster.verify import ID_OF

RELAY = "http://relay.test"
RPC = "http://rpc.test"
REGISTRY = "0x2bdCC0de6bE1f7D2ee689a0342D76F52E8EFABa3"
SETTING = FarcasterSetting(RELAY, RPC, REGISTRY, "app.example", "https://app.example/", 300_000)
NOW = 1_900_000_000_000
STRANGER = DevFid(1, "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a", "bob", "Bob", "#000")


class World:
    """The relay (in-process), an ID registry answering idOf from `fids`, every request seen."""

    def __init__(self) -> None:
        self.clock_ms = NOW
        self.relay = TestClient(create_relay_app(Limits(ttl_ms=300_000), lambda: self.clock_ms))
        self.fids = {Account.from_key(d.key).address.lower(): d.fid for d in DEV_FIDS}
        self.requests: list[httpx.Request] = []
        self.opened: list[str] = []
        self.signins = FarcasterSignIns(SETTING, self._open, random_hex=lambda n: "ab" * n)
        self.signins.http = httpx.AsyncClient(transport=httpx.MockTransport(self._handle))

    def _open(self, fid: str, now: int) -> str:
        self.opened.append(fid)
        return "0x" + "cd" * 20

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.host == "rpc.test":
            call = json.loads(request.content)["params"][0]
            assert call["to"] == REGISTRY and call["data"].startswith("0x" + ID_OF)
            fid = self.fids.get("0x" + call["data"][-40:], 0)
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": "0x" + encode(["uint256"], [fid]).hex()})
        answer = self.relay.request(request.method, request.url.path, content=request.content,
                                    headers=dict(request.headers))
        return httpx.Response(answer.status_code, content=answer.content, headers=dict(answer.headers))

    def answer(self, url: str, **changes: Any) -> None:
        params = connect_params(url)
        assert params is not None
        dev = changes.pop("dev", DEV_FIDS[0])
        params = {**params, **changes.pop("params", {})}
        text, signature = sign_in_message(params, dev, changes.pop("signed_at", self.clock_ms))
        body = {"message": text, "signature": signature, "fid": dev.fid, "username": dev.username,
                "displayName": dev.display_name, "pfpUrl": "https://example.invalid/a.png",
                "custody": Account.from_key(dev.key).address, **changes}
        token = params["channelToken"]
        assert self.relay.post("/v1/channel/authenticate", json=body,
                               headers={"Authorization": f"Bearer {token}"}).status_code == 201


async def _opened(world: World) -> dict[str, str]:
    return await world.signins.open_channel(NOW)


async def test_the_client_sends_the_auth_clients_exact_requests() -> None:
    world = World()
    channel = await _opened(world)
    create = world.requests[0]
    assert (create.method, str(create.url)) == ("POST", f"{RELAY}/v1/channel")
    assert create.headers["content-type"] == "application/json"
    assert json.loads(create.content) == {"siweUri": "https://app.example/", "domain": "app.example",
                                          "nonce": "ab" * 12, "expirationTime": "2030-03-17T17:51:40.000Z"}
    assert channel["nonce"] == "ab" * 12 and channel["url"].startswith("farcaster://connect?channelToken=")
    assert await world.signins.status(channel["channel_token"], channel["nonce"], NOW) == {"state": "pending"}
    status = world.requests[1]
    assert (status.method, str(status.url)) == ("GET", f"{RELAY}/v1/channel/status")
    assert status.headers["authorization"] == f"Bearer {channel['channel_token']}"
    assert status.content == b""


async def test_a_genuine_answer_is_verified_and_opens_the_fids_key() -> None:
    world = World()
    channel = await _opened(world)
    world.answer(channel["url"], dev=DEV_FIDS[1])
    verdict = await world.signins.status(channel["channel_token"], channel["nonce"], NOW)
    assert verdict == {"state": "verified", "fid": 2, "username": "carol", "display_name": "Carol Caster",
                       "pfp_url": "https://example.invalid/a.png", "address": "0x" + "cd" * 20}
    assert world.opened == ["2"]


@pytest.mark.parametrize(("rule", "changes", "reason"), [
    ("forged custody: the answer names FID 1's custody, another key signed",
     {"dev": STRANGER, "custody": Account.from_key(DEV_FIDS[0].key).address}, "custody"),
    ("an FID not registered to the signer", {"dev": DevFid(2, DEV_FIDS[0].key, "x", "X", "#000")}, "registry"),
    ("an address with no FID at all", {"dev": STRANGER, "custody": ""}, "registry"),
    ("another nonce", {"params": {"nonce": "ffffffffffff"}}, "nonce"),
    ("another domain", {"params": {"domain": "evil.example"}}, "domain"),
    # issue 38 item 7: the configured siwe_uri is checked when sign-in is not required too
    ("another URI than the configured siwe_uri", {"params": {"siweUri": "https://evil.example/"}}, "uri"),
    ("an expired message", {"params": {"expirationTime": "2020-01-01T00:00:00.000Z"}}, "expired"),
    ("a malformed message", {"message": "hello"}, "malformed"),
    ("a signature that is not one", {"signature": "0x" + "00" * 65}, "signature"),
    ("an avatar that is no web URL", {"pfpUrl": "javascript:alert(1)"}, "malformed"),
])
async def test_a_refused_answer_logs_one_line_and_stores_nothing(
    rule: str, changes: dict[str, Any], reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    world = World()
    channel = await _opened(world)
    world.answer(channel["url"], **changes)
    with caplog.at_level(logging.INFO, logger="modalcore.farcaster"):
        verdict = await world.signins.status(channel["channel_token"], channel["nonce"], NOW)
    assert verdict == {"state": "refused", "reason": reason}, rule
    assert world.opened == []
    lines = [r for r in caplog.records if r.name == "modalcore.farcaster.service"]
    assert len(lines) == 1 and lines[0].exc_info is None


async def test_an_expired_channel_is_reported_expired() -> None:
    world = World()
    channel = await _opened(world)
    world.clock_ms += 300_000
    assert await world.signins.status(channel["channel_token"], channel["nonce"], NOW) == {"state": "expired"}
    assert world.opened == []
