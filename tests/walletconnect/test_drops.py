"""Rule: malformed, wrongly encrypted, unknown-topic, replayed and oversized relay messages are
dropped with one log line (no traceback) and the session stays intact (the real wallet still
answers afterwards). The messages are injected by the relay into the dApp's connection."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.walletconnect.backend import jsonrpc
from modalcore.walletconnect.backend.crypto import generate_sym_key, seal
from modalcore_dev.walletconnect_relay import RelayServer
from modalcore.walletconnect.backend.relay_client import MAX_MESSAGE, RelayClient

from .conftest import DEV_ADDRESS, WAIT, dapp_on_relay, wallet_peer

pytestmark = pytest.mark.chain


class Injector:
    """Sends raw irn_subscription frames to the dApp's connection from the relay side."""

    def __init__(self, relay: RelayServer, client: RelayClient) -> None:
        self.target = next(c for c in relay.clients if c.client_id == client.identity.client_id)
        self.next_id = 1

    async def deliver(self, topic: str, message: str, delivery_id: int | None = None) -> None:
        if delivery_id is None:
            self.next_id += 1
            delivery_id = self.next_id
        await self.raw(json.dumps({"id": delivery_id, "jsonrpc": "2.0", "method": "irn_subscription",
                                   "params": {"id": "sub", "data": {"topic": topic, "message": message,
                                                                    "publishedAt": 1, "tag": 1108}}}))

    async def raw(self, frame: str) -> None:
        await self.target.ws.send(frame)


async def test_bad_messages_are_dropped_with_one_line_and_the_session_survives(
        devchain: ChainsInfo, caplog: pytest.LogCaptureFixture) -> None:
    async with dapp_on_relay() as (relay, client, dapp), wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        connection = await dapp.connect(["eip155:31337"])
        await wallet.send(cmd="pair", uri=connection.uri)
        session = await asyncio.wait_for(connection.approval, WAIT)
        await wallet.expect("acknowledged")
        before = dapp.state
        inject = Injector(relay, client)
        caplog.clear()
        caplog.set_level(logging.WARNING)

        ping = seal(jsonrpc.request(42, "wc_sessionPing", {}), session.sym_key)
        cases = [
            ("frame is not JSON", inject.raw("{not json")),
            ("unknown topic", inject.deliver("ab" * 32, seal("{}", generate_sym_key()))),
            ("undecryptable envelope", inject.deliver(session.topic, seal(jsonrpc.request(7, "wc_sessionPing", {}),
                                                                          generate_sym_key()))),
            ("undecryptable envelope (not base64)", inject.deliver(session.topic, "%%%not-base64%%%")),
            ("malformed payload", inject.deliver(session.topic, seal("[1, 2, 3]", session.sym_key))),
            ("oversized message", inject.deliver(session.topic, "A" * (MAX_MESSAGE + 1))),
        ]
        for reason, send in cases:
            caplog.clear()
            await send
            await _until(lambda: any(reason in r.getMessage() for r in caplog.records))
            await asyncio.sleep(0.05)
            dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
            assert len(dropped) == 1, (reason, [r.getMessage() for r in caplog.records])
            assert all(r.exc_info is None and r.exc_text is None for r in caplog.records)

        # replays: the same delivery id, the same message under a new id, the same request re-sealed
        await inject.deliver(session.topic, ping, delivery_id=9001)
        for reason, send in [("replayed delivery id", inject.deliver(session.topic, ping, delivery_id=9001)),
                             ("replayed message", inject.deliver(session.topic, ping)),
                             ("replayed request 42", inject.deliver(
                                 session.topic, seal(jsonrpc.request(42, "wc_sessionPing", {}), session.sym_key)))]:
            caplog.clear()
            await send
            await _until(lambda: any(reason in r.getMessage() for r in caplog.records))
            assert len([r for r in caplog.records if "dropped" in r.getMessage()]) == 1
            assert all(r.exc_info is None for r in caplog.records)

        assert dapp.state.sessions == before.sessions and dapp.state.pairings == before.pairings
        await dapp.ping(session.topic)
        signature = await dapp.request(session.topic, "eip155:31337", "personal_sign",
                                       ["0x" + b"still here".hex(), DEV_ADDRESS])
        assert Account.recover_message(encode_defunct(b"still here"), signature=signature) == DEV_ADDRESS


async def test_the_relay_connection_comes_back_and_resubscribes(devchain: ChainsInfo) -> None:
    """Rule: after the relay drops the connection, the client reconnects with backoff,
    resubscribes every topic, and the session carries on."""
    async with dapp_on_relay() as (relay, client, dapp), wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        connection = await dapp.connect(["eip155:31337"])
        await wallet.send(cmd="pair", uri=connection.uri)
        session = await asyncio.wait_for(connection.approval, WAIT)
        await wallet.expect("acknowledged")
        await relay.drop_connections()
        await _until(lambda: client.connections >= 2 and client.connected.is_set())
        await _until(lambda: any(session.topic in c.topics and c.client_id == client.identity.client_id
                                 for c in relay.clients))
        signature = await dapp.request(session.topic, "eip155:31337", "personal_sign",
                                       ["0x" + b"after reconnect".hex(), DEV_ADDRESS])
        assert Account.recover_message(encode_defunct(b"after reconnect"), signature=signature) == DEV_ADDRESS


async def _until(condition: object, timeout: float = WAIT) -> None:
    async def poll() -> None:
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)
    await asyncio.wait_for(poll(), timeout)
