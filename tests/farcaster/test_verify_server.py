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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.embedded.masterkey import MasterKey
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.netports import free_port
from modalcore.server.app import create_app
from modalcore.server.config import dev_networks, parse_config
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, RunningServer, serve_app

from ..embedded.device import DeviceKey
from ..embedded.test_approval_credential import _address, _rpc_answers, approve, ask

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


async def _signed_in_with_farcaster(client: Client, http: httpx.AsyncClient, relay: httpx.AsyncClient,
                                    device: DeviceKey) -> str:
    await client.join(opts={"networks": ["eip155:31337"]})
    await client.intent("host", "open", {})
    await client.intent("connect/social/farcaster", "press")
    got = await client.recv_until(lambda f: "/embedded/farcaster?session=" in str(f))
    assert (await http.get(f"/embedded/farcaster?session={client.session}&attempt=1")).status_code == 200
    opened = await _frame_opens(http, client.session, device)
    assert opened.status_code == 200 and opened.json()["qr"].startswith("<svg"), got
    assert (await relay.post("/client/approve", json={"url": opened.json()["url"], "fid": 2})).status_code == 201
    frames = await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                     and f["data"].get("isConnected") is True, timeout=15)
    return _address(frames)


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
            httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http, \
            httpx.AsyncClient(base_url=relay.http_url, timeout=10) as farcaster:
        device = DeviceKey()
        address = await _signed_in_with_farcaster(client, http, farcaster, device)
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
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
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
            httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http, \
            httpx.AsyncClient(base_url=relay.http_url, timeout=10) as farcaster:
        address = await _signed_in_with_farcaster(client, http, farcaster, DeviceKey())
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
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        await client.join(opts={"networks": ["eip155:31337"]})
        device = DeviceKey()
        for session, status in ((client.session, 404), ("nobody", 404), ("x" * 5000, 400)):
            answer = await http.post("/embedded/verify/farcaster", json={"session": session,
                                                                         "public_key": device.spki})
            assert answer.status_code == status
        assert (await http.post("/embedded/verify/farcaster", json={"session": client.session})).status_code == 400
