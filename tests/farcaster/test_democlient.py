"""The demo Farcaster client page (issue 33): it lists the relay's open channels, approves one
as a dev FID with a FIP-11 message signed by the FID's custody key, and refuses what is no
farcaster://connect URL of an open channel."""

from __future__ import annotations

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from starlette.testclient import TestClient

from modalcore_dev.farcaster.democlient import DEV_FIDS
from modalcore_dev.farcaster.devrelay import farcaster_section, start_farcaster_relay
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.siwx.domain.message import SiwxMessage


def test_the_page_approves_an_open_channel_as_a_dev_fid() -> None:
    client = TestClient(create_relay_app(demo_client=True))
    created = client.post("/v1/channel", json={"siweUri": "https://app.example/", "domain": "app.example",
                                               "nonce": "abcdef123456"}).json()
    page = client.get("/client")
    assert page.status_code == 200 and 'id="approve-2"' in page.text
    assert client.get("/client/channels").json() == {"channels": [created["url"]]}
    approved = client.post("/client/approve", json={"url": created["url"], "fid": 2})
    assert approved.status_code == 201
    status = client.get("/v1/channel/status", headers={"Authorization": f"Bearer {created['channelToken']}"}).json()
    custody = Account.from_key(DEV_FIDS[1].key).address
    assert (status["state"], status["fid"], status["username"], status["custody"]) == ("completed", 2, "carol", custody)
    message = SiwxMessage.parse(status["message"])
    assert (message.statement, message.chain_id, message.nonce, message.domain, message.resources) == (
        "Farcaster Auth", 10, "abcdef123456", "app.example", ("farcaster://fid/2",))
    assert Account.recover_message(encode_defunct(text=status["message"]), signature=status["signature"]) == custody
    assert client.get(status["pfpUrl"].replace("http://testserver", "")).headers["content-type"] == "image/svg+xml"
    assert client.get("/client/channels").json() == {"channels": []}
    assert client.post("/client/approve", json={"url": created["url"], "fid": 2}).status_code == 409


def test_the_page_refuses_what_is_not_a_connect_url_or_a_dev_fid() -> None:
    client = TestClient(create_relay_app(demo_client=True))
    url = client.post("/v1/channel", json={"siweUri": "https://a.example/", "domain": "a.example"}).json()["url"]
    assert client.post("/client/approve", json={"url": "https://evil.example/?x", "fid": 1}).status_code == 400
    assert client.post("/client/approve", json={"url": url, "fid": 99}).status_code == 400
    assert client.post("/client/approve", json={"url": url.replace("channelToken=", "channelToken=x"),
                                                "fid": 1}).status_code == 409


def test_the_dev_fids_keys_are_the_registered_dev_accounts() -> None:
    assert [Account.from_key(d.key).address for d in DEV_FIDS] == [
        "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "0x90F79bf6EB2c4f870365E785982E1f101E93b906"]


def test_the_demo_starts_the_relay_with_its_client_and_configures_the_engine_for_it() -> None:
    process, url = start_farcaster_relay()
    try:
        assert 'id="approve-1"' in httpx.get(f"{url}/client").text
    finally:
        process.terminate()
        process.wait(10)
    entry = {"rpc": "http://127.0.0.1:8545", "farcaster": {"idRegistry": "0x" + "12" * 20}}
    assert farcaster_section(url, entry, "http://127.0.0.1:5173") == {
        "relay_url": url, "rpc_url": "http://127.0.0.1:8545", "id_registry": "0x" + "12" * 20,
        "domain": "127.0.0.1:5173", "siwe_uri": "http://127.0.0.1:5173/"}
    assert farcaster_section(url, {"rpc": "http://x"}, "http://a") is None
