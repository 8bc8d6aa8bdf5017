"""The local relay (relay-server-rpc + SDK 2.25's wc_proposeSession / wc_approveSession),
driven by raw websocket clients."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import pytest
import websockets
from websockets.asyncio.client import ClientConnection, connect

from modalcore.walletconnect.backend.didjwt import ClientIdentity, sign_jwt
from modalcore_dev.walletconnect_relay import Limits, Mailbox, RelayServer, Stored, running_relay

TOPIC_A, TOPIC_B, TOPIC_C = "aa" * 32, "bb" * 32, "cc" * 32


class Raw:
    """A relay client speaking JSON-RPC by hand."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0
        self.deliveries: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.responses: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.auto_ack = True
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                payload = json.loads(frame)
                if payload.get("method") == "irn_subscription":
                    await self.deliveries.put(payload)
                    if self.auto_ack:
                        await self.ws.send(json.dumps({"id": payload["id"], "jsonrpc": "2.0", "result": True}))
                elif payload.get("id") in self.responses:
                    self.responses.pop(payload["id"]).set_result(payload)
        except websockets.ConnectionClosed:
            pass

    async def call(self, method: str, params: Any) -> dict[str, Any]:
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.responses[self.next_id] = future
        await self.ws.send(json.dumps({"id": self.next_id, "jsonrpc": "2.0", "method": method, "params": params}))
        return await asyncio.wait_for(future, 10)

    async def delivery(self, timeout: float = 10) -> dict[str, Any]:
        payload = await asyncio.wait_for(self.deliveries.get(), timeout)
        data: dict[str, Any] = payload["params"]["data"]
        return data

    async def nothing_delivered(self) -> bool:
        await asyncio.sleep(0.2)
        return self.deliveries.empty()


def _url(relay: RelayServer, identity: ClientIdentity) -> str:
    token = sign_jwt(identity, sub="ab" * 32, aud=relay.url, iat=int(time.time()))
    return f"{relay.url}?{urlencode({'auth': token, 'projectId': 'x', 'ua': 'test'})}"


@asynccontextmanager
async def raw_client(relay: RelayServer, identity: ClientIdentity | None = None) -> AsyncIterator[Raw]:
    async with connect(_url(relay, identity or ClientIdentity.generate())) as ws:
        client = Raw(ws)
        yield client
        client._reader.cancel()


@pytest.fixture
async def relay() -> AsyncIterator[RelayServer]:
    async with running_relay(Limits(max_message=1000, max_per_topic=3, max_topics_per_client=4)) as server:
        yield server


async def test_connections_need_a_valid_did_key_jwt(relay: RelayServer) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with connect(relay.url):
            pass
    assert refused.value.response.status_code == 401
    token = sign_jwt(ClientIdentity.generate(), sub="ab" * 32, aud=relay.url, iat=int(time.time()))
    forged = token[:-6] + ("AAAAAA" if not token.endswith("AAAAAA") else "BBBBBB")
    bad = f"{relay.url}?{urlencode({'auth': forged})}"
    with pytest.raises(websockets.InvalidStatus):
        async with connect(bad):
            pass


async def test_publish_reaches_subscribers_but_not_the_publisher(relay: RelayServer) -> None:
    async with raw_client(relay) as a, raw_client(relay) as b:
        assert "result" in await a.call("irn_subscribe", {"topic": TOPIC_A})
        assert (await b.call("irn_batchSubscribe", {"topics": [TOPIC_A, TOPIC_B]}))["result"].__len__() == 2
        assert (await a.call("irn_publish", {"topic": TOPIC_A, "message": "hello", "ttl": 300, "tag": 1108,
                                             "correlationId": 1, "rpcMethods": ["x"], "prompt": True}))["result"] is True
        data = await b.delivery()
        assert (data["topic"], data["message"], data["tag"]) == (TOPIC_A, "hello", 1108)
        assert await a.nothing_delivered()


async def test_the_mailbox_keeps_messages_for_late_subscribers_until_acknowledged(relay: RelayServer) -> None:
    identity = ClientIdentity.generate()
    async with raw_client(relay) as a:
        await a.call("irn_publish", {"topic": TOPIC_C, "message": "m1", "ttl": 300, "tag": 1})
    async with raw_client(relay, identity) as late:
        late.auto_ack = False
        await late.call("irn_subscribe", {"topic": TOPIC_C})
        assert (await late.delivery())["message"] == "m1"
    async with raw_client(relay, identity) as again:  # not acknowledged: delivered again
        await again.call("irn_subscribe", {"topic": TOPIC_C})
        assert (await again.delivery())["message"] == "m1"
        await asyncio.sleep(0.1)
    async with raw_client(relay, identity) as third:  # acknowledged by the same client id: gone
        await third.call("irn_subscribe", {"topic": TOPIC_C})
        assert await third.nothing_delivered()
    async with raw_client(relay) as other:  # another client still gets it by fetching
        fetched = (await other.call("irn_fetchMessages", {"topic": TOPIC_C}))["result"]
        assert [m["message"] for m in fetched["messages"]] == ["m1"] and fetched["hasMore"] is False


async def test_unsubscribed_topics_stop_delivering(relay: RelayServer) -> None:
    async with raw_client(relay) as a, raw_client(relay) as b:
        await b.call("irn_batchSubscribe", {"topics": [TOPIC_A, TOPIC_B]})
        await b.call("irn_batchUnsubscribe", {"subscriptions": [{"topic": TOPIC_A, "id": "x"}]})
        await a.call("irn_publish", {"topic": TOPIC_A, "message": "gone", "ttl": 300, "tag": 1})
        await a.call("irn_publish", {"topic": TOPIC_B, "message": "kept", "ttl": 300, "tag": 1})
        assert (await b.delivery())["message"] == "kept"
        await b.call("irn_unsubscribe", {"topic": TOPIC_B, "id": "x"})
        await a.call("irn_publish", {"topic": TOPIC_B, "message": "late", "ttl": 300, "tag": 1})
        assert await b.nothing_delivered()


async def test_sdk_propose_and_approve_subscribe_the_caller(relay: RelayServer) -> None:
    """wc_proposeSession / wc_approveSession: published on the pairing / session topics, and the
    caller is subscribed to them by the relay (the SDK skips its own subscribe)."""
    pairing, session = TOPIC_A, TOPIC_B
    async with raw_client(relay) as dapp, raw_client(relay) as wallet:
        await wallet.call("irn_subscribe", {"topic": pairing})
        assert (await dapp.call("wc_proposeSession", {"pairingTopic": pairing, "sessionProposal": "proposal",
                                                      "ttl": 300, "attestation": None}))["result"] is True
        proposal = await wallet.delivery()
        assert (proposal["message"], proposal["tag"]) == ("proposal", 1100)
        await wallet.call("wc_approveSession", {"sessionTopic": session, "pairingTopic": pairing,
                                                "sessionProposalResponse": "response",
                                                "sessionSettlementRequest": "settle"})
        response = await dapp.delivery()  # the dApp never subscribed the pairing topic itself
        assert (response["message"], response["tag"]) == ("response", 1101)
        await dapp.call("irn_subscribe", {"topic": session})
        settle = await dapp.delivery()
        assert (settle["message"], settle["tag"]) == ("settle", 1102)
        await dapp.call("irn_publish", {"topic": session, "message": "settled", "ttl": 300, "tag": 1103})
        assert (await wallet.delivery())["message"] == "settled"  # the wallet was subscribed by the relay


@pytest.mark.parametrize(("method", "params", "code"), [
    ("irn_publish", {"topic": TOPIC_A, "message": "x" * 1001, "ttl": 300, "tag": 1}, -32602),
    ("irn_publish", {"topic": "nothex", "message": "x", "ttl": 300, "tag": 1}, -32602),
    ("irn_publish", {"topic": TOPIC_A, "message": "x", "ttl": -1, "tag": 1}, -32602),
    ("irn_batchSubscribe", {"topics": ["aa" * 32, "ab" * 32, "ac" * 32, "ad" * 32, "ae" * 32]}, -32602),
    ("irn_subscribe", [], -32602),
    ("irn_teleport", {}, -32601),
])
async def test_bad_requests_get_a_json_rpc_error_and_one_log_line(
        relay: RelayServer, caplog: pytest.LogCaptureFixture, method: str, params: Any, code: int) -> None:
    async with raw_client(relay) as a:
        caplog.clear()
        answer = await a.call(method, params)
        assert answer["error"]["code"] == code
        lines = [r for r in caplog.records if r.name.startswith("modalcore_dev.walletconnect_relay")]
        assert len(lines) == 1 and lines[0].exc_info is None
        assert (await a.call("irn_subscribe", {"topic": TOPIC_A}))["result"]  # the connection carries on


async def test_malformed_frames_are_logged_once_and_the_connection_stays(
        relay: RelayServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    async with raw_client(relay) as a:
        await a.ws.send("{nope")
        await a.ws.send("[1]")
        assert (await a.call("irn_subscribe", {"topic": TOPIC_A}))["result"]
    assert len([r for r in caplog.records if "dropped a frame" in r.getMessage()]) == 2


def test_mailbox_ttl_and_per_topic_bound_are_enforced() -> None:
    box = Mailbox(Limits(max_per_topic=2))
    for i in range(3):
        box.put(Stored(i, TOPIC_A, f"m{i}", 1, published_at=0, expires_at=1000 + i))
    assert [m.message for m in box.pending_for(TOPIC_A, "c", now_ms=0)] == ["m1", "m2"]
    assert [m.message for m in box.pending_for(TOPIC_A, "c", now_ms=1001)] == ["m2"]
    assert box.pending_for(TOPIC_A, "c", now_ms=1002) == [] and box.count(TOPIC_A) == 0


async def test_a_bearer_header_authenticates_too(relay: RelayServer) -> None:
    token = sign_jwt(ClientIdentity.generate(), sub="ab" * 32, aud=relay.url, iat=int(time.time()))
    async with connect(relay.url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        client = Raw(ws)
        assert (await client.call("irn_subscribe", {"topic": TOPIC_A}))["result"]
        client._reader.cancel()


async def test_python_dash_m_runs_the_relay_on_127_0_0_1() -> None:
    """Rule: `python -m modalcore_dev.walletconnect_relay --port N` serves on 127.0.0.1 (0: any free port)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "modalcore_dev.walletconnect_relay", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        url = line.strip().rsplit(" ", 1)[-1]
        assert url.startswith("ws://127.0.0.1:")
        server = RelayServer(port=int(url.rsplit(":", 1)[1]))
        async with raw_client(server) as a:
            assert (await a.call("irn_subscribe", {"topic": TOPIC_A}))["result"]
    finally:
        process.terminate()
        await process.wait()


def test_mailbox_topic_count_is_bounded() -> None:
    box = Mailbox(Limits(max_topics=2))
    for topic in (TOPIC_A, TOPIC_B, TOPIC_C):
        box.put(Stored(1, topic, "m", 1, published_at=0, expires_at=10))
    assert (box.count(TOPIC_A), box.count(TOPIC_B), box.count(TOPIC_C)) == (0, 1, 1)
