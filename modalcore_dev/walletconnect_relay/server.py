"""The local relay: relay-server-rpc over websockets on 127.0.0.1.

Methods: irn_publish, irn_batchPublish, irn_subscribe, irn_batchSubscribe, irn_unsubscribe,
irn_batchUnsubscribe, irn_fetchMessages, irn_batchFetchMessages, and SDK 2.25's
wc_proposeSession / wc_approveSession (publish on the pairing / session topic and subscribe the
caller itself, since the SDK skips its own subscribe for those topics). Extra publish fields the
SDK sends (correlationId, rpcMethods, chainId, txHashes, prompt, ...) are ignored.

Every connection must present a valid did:key JWT (`?auth=` or `Authorization: Bearer`); its
issuer is the client id. A published message is delivered by `irn_subscription` to every other
connection subscribed to its topic and kept for its TTL, so a client that subscribes later still
gets it; a client's acknowledgement marks the message as received by that client. Bounded:
message size, messages per topic, topics per connection. Bad requests get a JSON-RPC error and
one log line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

import websockets
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from modalcore.walletconnect.backend.didjwt import JwtError, verify_jwt
from modalcore_dev.walletconnect_relay.mailbox import Limits, Mailbox, Stored

log = logging.getLogger(__name__)

TOPIC = re.compile(r"^[0-9a-f]{64}$")
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
PROPOSE = (300, 1100)
PROPOSE_RESPONSE = (300, 1101)
SETTLE = (300, 1102)


class RpcRefusal(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(eq=False)
class Client:
    ws: ServerConnection
    client_id: str
    topics: set[str] = field(default_factory=set)
    outstanding: dict[int, Stored] = field(default_factory=dict)  # delivery id → message


class RelayServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, limits: Limits | None = None) -> None:
        self.host = host
        self.port = port
        self.limits = limits or Limits()
        self.mailbox = Mailbox(self.limits)
        self.subscribers: dict[str, set[Client]] = {}
        self.clients: set[Client] = set()
        self.published = 0
        self.delivered = 0
        self._server: Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._next_id = int(time.time() * 1000) * 1000

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    async def start(self) -> int:
        self._server = await serve(self._serve, self.host, self.port, process_request=self._authenticate,
                                   max_size=self.limits.max_message * 2 + 65536)
        self.port = next(iter(self._server.sockets)).getsockname()[1]
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def drop_connections(self) -> None:
        """Close every client connection (tests: the clients must reconnect and resubscribe)."""
        for client in list(self.clients):
            await client.ws.close()

    # ---------- connection -------------------------------------------------------------------

    def _authenticate(self, connection: ServerConnection, request: Request) -> Response | None:
        token = parse_qs(urlsplit(request.path).query).get("auth", [""])[0]
        header = request.headers.get("Authorization", "")
        if not token and header.startswith("Bearer "):
            token = header[7:]
        try:
            verified = verify_jwt(token, now=int(time.time()))
        except JwtError as error:
            log.warning("walletconnect relay: refused a connection: %s", error)
            return connection.respond(HTTPStatus.UNAUTHORIZED, "invalid auth\n")
        connection.client_id = verified.client_id  # type: ignore[attr-defined]
        return None

    async def _serve(self, ws: ServerConnection) -> None:
        client = Client(ws, str(getattr(ws, "client_id")))
        self.clients.add(client)
        try:
            async for frame in ws:
                text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
                await self._on_frame(client, text)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.clients.discard(client)
            for topic in client.topics:
                subs = self.subscribers.get(topic)
                if subs is not None:
                    subs.discard(client)
                    if not subs:
                        del self.subscribers[topic]

    async def _on_frame(self, client: Client, text: str) -> None:
        try:
            payload = json.loads(text)
        except ValueError:
            log.warning("walletconnect relay: dropped a frame that is not JSON from %s", client.client_id[-8:])
            return
        if not isinstance(payload, dict) or "id" not in payload:
            log.warning("walletconnect relay: dropped a frame that is not JSON-RPC from %s", client.client_id[-8:])
            return
        request_id = payload["id"]
        if "method" not in payload:
            self._on_ack(client, request_id, payload)
            return
        method = payload.get("method")
        try:
            result = await self._call(client, str(method), payload.get("params"))
        except RpcRefusal as refusal:
            log.warning("walletconnect relay: refused %s from %s: %s", str(method)[:40], client.client_id[-8:],
                        refusal.message)
            await self._send(client, {"id": request_id, "jsonrpc": "2.0",
                                      "error": {"code": refusal.code, "message": refusal.message}})
            return
        await self._send(client, {"id": request_id, "jsonrpc": "2.0", "result": result})

    def _on_ack(self, client: Client, request_id: Any, payload: dict[str, Any]) -> None:
        stored = client.outstanding.pop(request_id, None) if isinstance(request_id, int) else None
        if stored is not None and payload.get("result") is True:
            stored.received_by.add(client.client_id)

    async def _send(self, client: Client, payload: dict[str, Any]) -> None:
        try:
            await client.ws.send(json.dumps(payload))
        except websockets.ConnectionClosed:
            pass

    # ---------- methods ----------------------------------------------------------------------

    async def _call(self, client: Client, method: str, params: Any) -> Any:
        if not isinstance(params, dict):
            raise RpcRefusal(INVALID_PARAMS, "params must be an object")
        if method == "irn_publish":
            await self.publish(client, params)
            return True
        if method == "irn_batchPublish":
            for message in _list(params, "messages", dict):
                await self.publish(client, message)
            return True
        if method == "irn_subscribe":
            return (await self.subscribe(client, [_topic(params.get("topic"))]))[0]
        if method == "irn_batchSubscribe":
            return await self.subscribe(client, [_topic(t) for t in _list(params, "topics", str)])
        if method == "irn_unsubscribe":
            self.unsubscribe(client, [_topic(params.get("topic"))])
            return True
        if method == "irn_batchUnsubscribe":
            self.unsubscribe(client, [_topic(s.get("topic")) for s in _list(params, "subscriptions", dict)])
            return True
        if method == "irn_fetchMessages":
            return self.fetch(client, [_topic(params.get("topic"))])
        if method == "irn_batchFetchMessages":
            return self.fetch(client, [_topic(t) for t in _list(params, "topics", str)])
        if method == "wc_proposeSession":
            pairing_topic = _topic(params.get("pairingTopic"))
            await self.subscribe(client, [pairing_topic], deliver=False)
            await self.publish(client, {"topic": pairing_topic, "message": params.get("sessionProposal"),
                                        "ttl": PROPOSE[0], "tag": PROPOSE[1],
                                        "attestation": params.get("attestation")})
            await self._deliver_pending(client, [pairing_topic])
            return True
        if method == "wc_approveSession":
            pairing_topic, session_topic = _topic(params.get("pairingTopic")), _topic(params.get("sessionTopic"))
            await self.subscribe(client, [session_topic], deliver=False)
            await self.publish(client, {"topic": pairing_topic, "message": params.get("sessionProposalResponse"),
                                        "ttl": PROPOSE_RESPONSE[0], "tag": PROPOSE_RESPONSE[1]})
            await self.publish(client, {"topic": session_topic, "message": params.get("sessionSettlementRequest"),
                                        "ttl": SETTLE[0], "tag": SETTLE[1]})
            await self._deliver_pending(client, [session_topic])
            return True
        raise RpcRefusal(METHOD_NOT_FOUND, f"unknown method {method[:40]}")

    async def publish(self, client: Client, params: dict[str, Any]) -> None:
        topic = _topic(params.get("topic"))
        message = params.get("message")
        if not isinstance(message, str) or not message:
            raise RpcRefusal(INVALID_PARAMS, "message must be a non-empty string")
        if len(message) > self.limits.max_message:
            raise RpcRefusal(INVALID_PARAMS, f"message too large ({len(message)} > {self.limits.max_message})")
        ttl, tag = params.get("ttl", 300), params.get("tag", 0)
        if not isinstance(ttl, int) or not 0 < ttl <= self.limits.max_ttl:
            raise RpcRefusal(INVALID_PARAMS, "ttl must be a positive number of seconds")
        if not isinstance(tag, int) or tag < 0:
            raise RpcRefusal(INVALID_PARAMS, "tag must be a non-negative integer")
        attestation = params.get("attestation")
        now = int(time.time() * 1000)
        stored = Stored(self._new_id(), topic, message, tag, now, now + ttl * 1000,
                        attestation if isinstance(attestation, str) else None, {client.client_id})
        self.mailbox.put(stored)
        self.published += 1
        for other in list(self.subscribers.get(topic, ())):
            if other.client_id != client.client_id:
                await self._deliver(other, stored)

    async def subscribe(self, client: Client, topics: list[str], deliver: bool = True) -> list[str]:
        fresh = [t for t in topics if t not in client.topics]
        if len(client.topics) + len(fresh) > self.limits.max_topics_per_client:
            raise RpcRefusal(INVALID_PARAMS, f"more than {self.limits.max_topics_per_client} topics")
        for topic in topics:
            client.topics.add(topic)
            self.subscribers.setdefault(topic, set()).add(client)
        if deliver:  # after the subscribe answer has gone out
            task = asyncio.create_task(self._deliver_pending(client, topics))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return [hashlib.sha256(f"{t}{client.client_id}".encode()).hexdigest() for t in topics]

    def unsubscribe(self, client: Client, topics: list[str]) -> None:
        for topic in topics:
            client.topics.discard(topic)
            subs = self.subscribers.get(topic)
            if subs is not None:
                subs.discard(client)
                if not subs:
                    del self.subscribers[topic]

    def fetch(self, client: Client, topics: list[str]) -> dict[str, Any]:
        now = int(time.time() * 1000)
        messages = []
        for topic in topics:
            for stored in self.mailbox.pending_for(topic, client.client_id, now):
                stored.received_by.add(client.client_id)
                messages.append(stored.data())
        return {"messages": messages, "hasMore": False}

    async def _deliver_pending(self, client: Client, topics: list[str]) -> None:
        now = int(time.time() * 1000)
        for topic in topics:
            for stored in self.mailbox.pending_for(topic, client.client_id, now):
                await self._deliver(client, stored)

    async def _deliver(self, client: Client, stored: Stored) -> None:
        if any(s is stored for s in client.outstanding.values()):
            return
        delivery_id = self._new_id()
        client.outstanding[delivery_id] = stored
        if len(client.outstanding) > self.limits.max_outstanding:  # a client that never acknowledges
            del client.outstanding[next(iter(client.outstanding))]
        self.delivered += 1
        await self._send(client, {"id": delivery_id, "jsonrpc": "2.0", "method": "irn_subscription",
                                  "params": {"id": hashlib.sha256(f"{stored.topic}{client.client_id}".encode())
                                             .hexdigest(), "data": stored.data()}})

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id


def _topic(value: Any) -> str:
    if not isinstance(value, str) or not TOPIC.match(value):
        raise RpcRefusal(INVALID_PARAMS, "a topic is 32 bytes of lowercase hex")
    return value


def _list(params: dict[str, Any], name: str, kind: type) -> list[Any]:
    value = params.get(name)
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise RpcRefusal(INVALID_PARAMS, f"{name} must be a list")
    if len(value) > 500:
        raise RpcRefusal(INVALID_PARAMS, f"at most 500 {name} at once")
    return value


@asynccontextmanager
async def running_relay(limits: Limits | None = None) -> AsyncIterator[RelayServer]:
    """A relay on a free 127.0.0.1 port for the duration of the block."""
    server = RelayServer(limits=limits)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
