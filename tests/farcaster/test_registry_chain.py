"""The engine's Farcaster check against the real IdRegistry on the dev chain (issue 33): a dev
FID's custody answer is verified through the chain's RPC; a key the registry does not know, or
one dev account's custody claiming another's FID, is refused and opens no key."""

from __future__ import annotations

import httpx
import pytest
from starlette.testclient import TestClient

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.farcaster.democlient import DEV_FIDS, DevFid, connect_params, sign_in_message
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.farcaster.service import FarcasterSetting, FarcasterSignIns

pytestmark = pytest.mark.chain

NOW = 1_900_000_000_000
UNREGISTERED = DevFid(1, "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a", "x", "X", "#000")


@pytest.mark.parametrize(("approver", "verdict"), [
    (DEV_FIDS[2], "verified"),
    (UNREGISTERED, "refused"),  # dev account 4: no FID
    (DevFid(3, DEV_FIDS[0].key, "x", "X", "#000"), "refused"),  # FID 1's custody claiming FID 3
])
async def test_the_registry_on_the_dev_chain_decides(devchains: ChainsInfo, approver: DevFid, verdict: str) -> None:
    chain = devchains.chain(31337)
    relay = TestClient(create_relay_app())

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.host != "relay.test":  # the dev chain itself
            node = httpx.post(str(request.url), content=request.content, headers={"content-type": "application/json"})
            return httpx.Response(node.status_code, content=node.content)
        answer = relay.request(request.method, request.url.path, content=request.content, headers=dict(request.headers))
        return httpx.Response(answer.status_code, content=answer.content, headers=dict(answer.headers))

    opened: list[str] = []

    def open_key(fid: str, now: int) -> str:
        opened.append(fid)
        return "0x" + "cd" * 20

    setting = FarcasterSetting("http://relay.test", chain["rpc"], chain["farcaster"]["idRegistry"], "app.example",
                               "https://app.example/")
    signins = FarcasterSignIns(setting, open_key)
    signins.http = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    channel = await signins.open_channel(NOW)
    params = connect_params(channel["url"])
    assert params is not None
    text, signature = sign_in_message(params, approver, NOW)
    assert relay.post("/v1/channel/authenticate", headers={"Authorization": f"Bearer {params['channelToken']}"},
                      json={"message": text, "signature": signature, "fid": approver.fid}).status_code == 201
    result = await signins.status(channel["channel_token"], channel["nonce"], NOW)
    assert result["state"] == verdict
    assert opened == (["3"] if verdict == "verified" else [])
    if result["state"] == "refused":
        assert result["reason"] == "registry"
