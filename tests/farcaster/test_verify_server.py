"""Issue 33 with issue 27: a Farcaster account's browser key may approve only after a Farcaster
sign-in of that FID answered a channel opened for that key: ConnectingFarcaster's engine-origin
frame (`/embedded/farcaster`), or the approval frame's "verify it is you" (another browser). The
engine on the dev chain's IdRegistry, the local relay and its demo client; the visitor's frame
is a `DeviceKey`.

- Connect: the frame opens the channel for its key; the FID's answer connects the session and
  registers that key: the first approval needs no second scan;
- the host's server, holding the session, opens ConnectingFarcaster's channel first for a key of
  its own: the frame is refused (no QR to scan), nothing is registered without an answer;
- the approval frame of another browser: the host's own channel answered by another FID
  registers nothing; the frame's channel cannot be read with another key; the FID's answer
  registers the frame's key, and Approve signs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.embedded.masterkey import MasterKey
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.netports import free_port
from modalcore.siwx.domain.message import SiwxMessage, iso_from_ms
from modalcore.server.app import create_app
from modalcore.server.config import dev_networks, parse_config
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, RunningServer, serve_app

from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import _address, _rpc_answers, approve, ask
from ..siwx.test_siwe_interop import independent_check

pytestmark = pytest.mark.chain


@pytest.fixture(scope="module")
def relay() -> Iterator[RunningServer]:
    with serve_app(create_relay_app(demo_client=True)) as running:
        yield running


@pytest.fixture(scope="module")
def engine(devchains: ChainsInfo, relay: RunningServer,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("farcaster-verify")
    key = folder / "master.key"
    key.write_text(MasterKey.generate().hex())
    section = farcaster_section(relay.http_url, devchains.chain(31337), TEST_ORIGIN)
    assert section is not None
    config = parse_config({
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
        "networks": dev_networks(devchains.rpc_urls, devchains.deployment),
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key), "farcaster": section},
    })
    with serve_app(create_app(config), free_port()) as running:
        yield running


async def _frame_opens(http: httpx.AsyncClient, session: str, device: DeviceKey,
                       attempt: str = "1") -> httpx.Response:
    """What ConnectingFarcaster's frame does once loaded: open the channel for its key."""
    return await http.post("/embedded/farcaster/channel", json={"session": session, "attempt": attempt,
                                                                 "public_key": device.spki})


async def _signed_in_with_farcaster(engine: RunningServer, client: Client, http: httpx.AsyncClient,
                                    relay: httpx.AsyncClient, device: DeviceKey) -> str:
    await client.join(opts={"networks": ["eip155:31337"]})
    await client.intent("host", "open", {})
    await client.intent("connect/social/farcaster", "press")
    got = await client.recv_until(lambda f: "/embedded/farcaster?session=" in str(f))
    assert (await http.get(f"/embedded/farcaster?session={client.session}&attempt=1")).status_code == 200
    opened = await _frame_opens(http, client.session, device)
    assert opened.status_code == 200 and opened.json()["qr"].startswith("<svg"), got
    assert await _channel_key(engine, client.session) == device.spki  # what a linked phone's sign-in is told by
    assert (await relay.post("/client/approve", json={"url": opened.json()["url"], "fid": 2})).status_code == 201
    frames = await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                     and f["data"].get("isConnected") is True, timeout=15)
    return _address(frames)


async def _channel_key(engine: RunningServer, session: str) -> str:
    """The key the session's Farcaster channel was opened for, once the route delivered it."""
    for _ in range(100):
        channel = engine.hub.runners[session].session.model.embedded.farcaster
        if channel is not None and channel.token:
            return channel.frame_key
        await asyncio.sleep(0.02)
    raise AssertionError("the channel never reached the session")


async def _verify(http: httpx.AsyncClient, session: str, device: DeviceKey) -> dict[str, Any]:
    answer = await http.post("/embedded/verify/farcaster", json={"session": session, "public_key": device.spki})
    assert answer.status_code == 200
    return dict(answer.json())


async def _status(http: httpx.AsyncClient, session: str, token: str, device: DeviceKey) -> httpx.Response:
    body = {"session": session, "channel": token, "public_key": device.spki}
    for _ in range(100):
        answer = await http.post("/embedded/verify/farcaster/status", json=body)
        if answer.status_code != 200 or answer.json()["state"] != "pending":
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError("the channel stayed pending")


async def _registered(http: httpx.AsyncClient, session: str, eid: str, device: DeviceKey) -> bool:
    begun = await http.post("/embedded/approve/begin", json={"session": session, "request": eid,
                                                            "public_key": device.spki})
    return bool(begun.json()["registered"])


async def test_the_connect_frames_key_is_registered_by_the_fids_answer_and_approves_at_once(
        engine: RunningServer, relay: RunningServer) -> None:
    async with engine.client() as client, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http, \
            httpx.AsyncClient(base_url=relay.http_url, timeout=10) as farcaster:
        device = DeviceKey()
        address = await _signed_in_with_farcaster(engine, client, http, farcaster, device)
        assert (await _frame_opens(http, client.session, device)).status_code == 409  # connected: no more
        _, eid = await ask(client, "1", "personal_sign", ["0x68690a", address])
        assert await _registered(http, client.session, eid, device) is True
        assert await _registered(http, client.session, eid, DeviceKey()) is False
        answer, _ = await approve(http, client.session, eid, device)
        assert answer.status_code == 200
        frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        assert _rpc_answers(frames)[-1]["ok"] is True


async def test_the_host_opening_connect_farcasters_channel_first_registers_nothing(
        engine: RunningServer, relay: RunningServer) -> None:
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http:
        await client.join(opts={"networks": ["eip155:31337"]})
        await client.intent("host", "open", {})
        assert (await _frame_opens(http, client.session, DeviceKey())).status_code == 409  # not on the view
        await client.intent("connect/social/farcaster", "press")
        await client.recv_until(lambda f: "/embedded/farcaster?session=" in str(f))
        host, frame = DeviceKey(), DeviceKey()
        assert (await _frame_opens(http, client.session, host, attempt="2")).status_code == 409
        assert (await _frame_opens(http, client.session, host)).status_code == 200
        assert (await _frame_opens(http, client.session, frame)).status_code == 409  # the frame says so
        bad = await http.post("/embedded/farcaster/channel", json={"session": client.session, "attempt": "1",
                                                                   "public_key": "not-a-key"})
        assert bad.status_code in (400, 409)


async def test_another_browser_verifies_with_farcaster_inside_the_approval_frame(
        engine: RunningServer, relay: RunningServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http, \
            httpx.AsyncClient(base_url=relay.http_url, timeout=10) as farcaster:
        address = await _signed_in_with_farcaster(engine, client, http, farcaster, DeviceKey())
        _, eid = await ask(client, "1", "personal_sign", ["0x68690a", address])
        frame = DeviceKey()  # another browser's frame
        begun = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": eid,
                                                                  "public_key": frame.spki})).json()
        assert (begun["registered"], begun["verify"], begun["provider"]) == (False, "farcaster", "Farcaster")
        assert (await approve(http, client.session, eid, frame))[0].status_code == 403

        # the host's server opens a channel for its own key; another FID (1) answers it
        host = DeviceKey()
        hosts = await _verify(http, client.session, host)
        assert (await farcaster.post("/client/approve", json={"url": hosts["url"], "fid": 1})).status_code == 201
        assert (await _status(http, client.session, hosts["channel"], host)).json() == {"state": "refused"}
        assert await _registered(http, client.session, eid, host) is False

        # the frame's channel: drawn in the frame as an SVG QR code; no other key may read it
        mine = await _verify(http, client.session, frame)
        assert mine["url"].startswith("farcaster://connect?channelToken=") and mine["qr"].startswith("<svg")
        assert (await _status(http, client.session, mine["channel"], host)).status_code == 404
        assert (await _status(http, "another-session", mine["channel"], frame)).status_code == 404
        assert (await farcaster.post("/client/approve", json={"url": mine["url"], "fid": 2})).status_code == 201
        assert (await _status(http, client.session, mine["channel"], frame)).json() == {"state": "verified"}
        assert await _registered(http, client.session, eid, frame) is True
        assert await _registered(http, client.session, eid, host) is False
        # the channel is read once: its answer registers nothing more
        assert (await _status(http, client.session, mine["channel"], frame)).status_code == 404

        answer, _ = await approve(http, client.session, eid, frame)
        assert answer.status_code == 200
        frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        result = _rpc_answers(frames)[-1]
        assert result["ok"] is True
        signer = Account.recover_message(encode_defunct(primitive=bytes.fromhex("68690a")),
                                         signature=result["result"])
        assert signer == address
    assert "Traceback" not in caplog.text
    assert "farcaster verification refused: another FID answered" in caplog.text


async def test_a_session_not_signed_in_with_farcaster_opens_no_channel(engine: RunningServer) -> None:
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http:
        await client.join(opts={"networks": ["eip155:31337"]})
        device = DeviceKey()
        for session, status in ((client.session, 404), ("nobody", 404), ("x" * 5000, 400)):
            answer = await http.post("/embedded/verify/farcaster", json={"session": session,
                                                                         "public_key": device.spki})
            assert answer.status_code == status
        assert (await http.post("/embedded/verify/farcaster", json={"session": client.session})).status_code == 400


def _signed_in(frame: dict[str, Any]) -> bool:
    return frame["t"] == "host_event" and frame.get("kind") == "siwx" and frame["data"].get("signedIn") is True


async def _one_approval_channel(client: Client, http: httpx.AsyncClient, device: DeviceKey) -> dict[str, str]:
    """Connect → Farcaster with sign-in required: the frame's channel (its connect URL's query)."""
    await client.join(opts={"networks": ["eip155:31337"], "siwx": {"required": True}})
    await client.intent("host", "open", {})
    await client.intent("connect/social/farcaster", "press")
    await client.recv_until(lambda f: "/embedded/farcaster?session=" in str(f))
    opened = await _frame_opens(http, client.session, device)
    assert opened.status_code == 200
    query = {k: v[0] for k, v in parse_qs(urlsplit(opened.json()["url"]).query).items()}
    return {**query, "url": opened.json()["url"]}


async def test_with_sign_in_required_one_farcaster_approval_signs_in_and_the_sign_in_verifies_with_siwe(
        engine: RunningServer, relay: RunningServer) -> None:
    """The frame's route opens the channel with the SIWX message's domain, URI and the session's
    SIWX nonce; the FID's approval connects and signs in: no SIWXSignMessage, no approval frame;
    the host's backend reads the stored sign-in (GET /v1/sessions), and SpruceID's `siwe` verifies it."""
    async with engine.client() as client, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http, \
            httpx.AsyncClient(base_url=relay.http_url, timeout=10) as farcaster:
        channel = await _one_approval_channel(client, http, DeviceKey())
        assert (channel["domain"], channel["siweUri"]) == ("app.example.com", TEST_ORIGIN)
        assert (await farcaster.post("/client/approve", json={"url": channel["url"], "fid": 2})).status_code == 201
        frames = await client.recv_until(_signed_in, timeout=15)
        assert not any(f["t"] == "effect" for f in frames)  # no approval asked of the browser
        assert "SIWXSignMessage" not in str(frames) and "ApproveTransaction" not in str(frames)
        address = _address(frames)
        stored = (await http.get(f"/v1/sessions/{address}", params={"domain": "app.example.com"})).json()
    [session] = stored
    [result] = independent_check("siwe-py", [{"text": session["message"], "signature": session["signature"],
                                               "domain": "app.example.com", "nonce": channel["nonce"],
                                               "time": iso_from_ms(int(time.time() * 1000))}])
    assert result["verified"], result["error"]
    assert result["rebuilt"] == session["message"]
    assert (result["fields"]["address"], result["fields"]["uri"]) == (address, TEST_ORIGIN)
    assert result["fields"]["statement"] is None


async def test_with_sign_in_required_a_forged_answer_signs_nothing_and_stores_nothing(
        engine: RunningServer, relay: RunningServer) -> None:
    """The channel answered with another nonce (an approval replayed from another sign-in):
    refused; Try again, the FID's genuine approval: exactly one stored sign-in, the genuine one."""
    async with engine.client() as client, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http, \
            httpx.AsyncClient(base_url=relay.http_url, timeout=10) as farcaster:
        device = DeviceKey()
        channel = await _one_approval_channel(client, http, device)
        forged = channel["url"].replace(f"nonce={channel['nonce']}", "nonce=" + "ab" * 16)
        assert (await farcaster.post("/client/approve", json={"url": forged, "fid": 3})).status_code == 201
        await client.recv_until(lambda f: "The Farcaster sign-in could not be verified" in str(f), timeout=15)
        await client.intent("farcaster/retry", "press")
        await client.recv_until(lambda f: "attempt=2" in str(f))
        opened = await _frame_opens(http, client.session, device, attempt="2")
        fresh = {k: v[0] for k, v in parse_qs(urlsplit(opened.json()["url"]).query).items()}
        assert fresh["nonce"] != channel["nonce"]  # a fresh SIWX nonce for the fresh channel
        assert (await farcaster.post("/client/approve", json={"url": opened.json()["url"], "fid": 3})).status_code == 201
        frames = await client.recv_until(_signed_in, timeout=15)
        stored = (await http.get(f"/v1/sessions/{_address(frames)}")).json()
    assert [SiwxMessage.parse(s["message"]).nonce for s in stored] == [fresh["nonce"]]
