"""One relay connection per engine process, multiplexing every session's topics.

`RelayClient` speaks relay-server-rpc over `websockets`: batch subscribe, publish,
unsubscribe, the relay's `irn_subscription` deliveries acknowledged, message ids and message
contents deduplicated (bounded caches), reconnect with exponential backoff and resubscription
of every topic. Deliveries go to the handler registered for their topic. Malformed, unknown-topic,
replayed and oversized deliveries are dropped with one log line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlencode

import websockets
from websockets.asyncio.client import ClientConnection, connect

from ...rules import limits as L
from .dedupe import RecentSet
from .didjwt import ClientIdentity, sign_jwt

log = logging.getLogger(__name__)

Handler = Callable[[str, str, int], Awaitable[None] | None]  # (topic, message, publishedAt ms)

MAX_MESSAGE = L.WC_MESSAGE_CHARS
MAX_FRAME = L.WC_FRAME_BYTES
DEDUPE_LIMIT = L.WC_DEDUPE_IDS
BATCH_LIMIT = L.WC_BATCH_TOPICS
REQUEST_TIMEOUT = 10.0
SDK_UA = "wc-2/python-3.11/modalcore"


class RelayError(Exception):
    """The relay refused a request, or could not be reached in time."""


class _ConnectionLost(Exception):
    pass


class RelayClient:
    def __init__(self, url: str, identity: ClientIdentity | None = None, *, project_id: str = "",
                 backoff: tuple[float, float] = (0.1, 5.0), max_message: int = MAX_MESSAGE,
                 dedupe_limit: int = DEDUPE_LIMIT, request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.url = url
        self.identity = identity or ClientIdentity.generate()
        self.project_id = project_id
        self.backoff = backoff
        self.max_message = max_message
        self.request_timeout = request_timeout
        self.topics: set[str] = set()
        self.handlers: dict[str, Handler] = {}
        self.connected = asyncio.Event()
        self.connections = 0  # how many times a connection opened (reconnects included)
        self.dropped = 0
        self._seen_ids = RecentSet(dedupe_limit)
        self._seen_messages = RecentSet(dedupe_limit)
        self._ws: ClientConnection | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._task: asyncio.Task[None] | None = None
        self._dispatcher: asyncio.Task[None] | None = None
        self._inbox: asyncio.Queue[tuple[str, str, int]] = asyncio.Queue()
        self._resubscribing: asyncio.Task[None] | None = None
        self._closing = False
        self._next_id = int(time.time() * 1000) * 1000

    # ---------- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Connect (and keep reconnecting in the background); returns once connected."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="walletconnect-relay")
            self._dispatcher = asyncio.create_task(self._dispatch(), name="walletconnect-dispatch")
        await asyncio.wait_for(self.connected.wait(), timeout=self.request_timeout)

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        for task in (self._task, self._dispatcher):
            if task is not None:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
        self._task = self._dispatcher = None

    def on(self, topic: str, handler: Handler) -> None:
        self.handlers[topic] = handler

    def off(self, topic: str) -> None:
        self.handlers.pop(topic, None)

    # ---------- requests ---------------------------------------------------------------------

    async def subscribe(self, topics: Iterable[str]) -> None:
        """Subscribe topics in batches (irn_batchSubscribe); remembered for resubscription."""
        new = [t for t in dict.fromkeys(topics)]
        self.topics.update(new)
        for start in range(0, len(new), BATCH_LIMIT):
            await self.request("irn_batchSubscribe", {"topics": new[start:start + BATCH_LIMIT]})

    async def unsubscribe(self, topics: Iterable[str]) -> None:
        gone = [t for t in dict.fromkeys(topics) if t in self.topics]
        for topic in gone:
            self.topics.discard(topic)
            self.handlers.pop(topic, None)
        if not gone:
            return
        subscriptions = [{"topic": t, "id": self._subscription_id(t)} for t in gone]
        for start in range(0, len(subscriptions), BATCH_LIMIT):
            await self.request("irn_batchUnsubscribe", {"subscriptions": subscriptions[start:start + BATCH_LIMIT]})

    async def publish(self, topic: str, message: str, *, tag: int, ttl: int, prompt: bool = False) -> None:
        params: dict[str, object] = {"topic": topic, "message": message, "ttl": ttl, "tag": tag}
        if prompt:
            params["prompt"] = True
        await self.request("irn_publish", params)

    async def request(self, method: str, params: object) -> Any:
        """One relay request, resent after a reconnect until answered or timed out."""
        deadline = asyncio.get_running_loop().time() + self.request_timeout * 3
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise RelayError(f"{method}: the relay did not answer")
            try:
                await asyncio.wait_for(self.connected.wait(), timeout=remaining)
                return await self._send_request(method, params)
            except _ConnectionLost:
                continue
            except TimeoutError as error:
                raise RelayError(f"{method}: the relay did not answer") from error

    async def _send_request(self, method: str, params: object) -> object:
        ws = self._ws
        if ws is None:
            raise _ConnectionLost()
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await ws.send(json.dumps({"id": request_id, "jsonrpc": "2.0", "method": method, "params": params}))
        except websockets.ConnectionClosed as error:
            self._pending.pop(request_id, None)
            if future.done() and not future.cancelled():
                future.exception()  # failed by the reconnect loop meanwhile: read, so asyncio logs nothing
            raise _ConnectionLost() from error
        try:
            return await asyncio.wait_for(future, timeout=self.request_timeout)
        finally:
            self._pending.pop(request_id, None)

    # ---------- connection -------------------------------------------------------------------

    def _connect_url(self) -> str:
        auth = sign_jwt(self.identity, sub=os.urandom(32).hex(), aud=self.url.split("?")[0],
                        iat=int(time.time()))
        query = {"auth": auth, "ua": SDK_UA}
        if self.project_id:
            query["projectId"] = self.project_id
        return f"{self.url.split('?')[0]}?{urlencode(query)}"

    async def _run(self) -> None:
        delay = self.backoff[0]
        while not self._closing:
            try:
                async with connect(self._connect_url(), max_size=MAX_FRAME, open_timeout=self.request_timeout) as ws:
                    self._ws = ws
                    self.connections += 1
                    delay = self.backoff[0]
                    reader = asyncio.create_task(self._read(ws))
                    self.connected.set()
                    if self.topics:
                        self._resubscribing = asyncio.create_task(self._resubscribe())
                    await reader
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed, TimeoutError) as error:
                if not self._closing:
                    log.warning("walletconnect relay %s unreachable (%s); retrying in %.1f s",
                                self.url, type(error).__name__, delay)
            finally:
                self._ws = None
                self.connected.clear()
                for future in self._pending.values():
                    if not future.done():
                        future.set_exception(_ConnectionLost())
            if self._closing:
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff[1])

    async def _resubscribe(self) -> None:
        topics = sorted(self.topics)
        try:
            for start in range(0, len(topics), BATCH_LIMIT):
                await self.request("irn_batchSubscribe", {"topics": topics[start:start + BATCH_LIMIT]})
        except RelayError as error:
            log.warning("walletconnect relay: resubscribe failed (%s)", error)

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                await self._on_frame(ws, frame if isinstance(frame, str) else frame.decode("utf-8", "replace"))
        except websockets.ConnectionClosed:
            pass

    async def _on_frame(self, ws: ClientConnection, frame: str) -> None:
        if len(frame) > self.max_message + 4096:
            self._drop("?", f"oversized frame ({len(frame)} characters)")
            return
        try:
            payload = json.loads(frame)
        except ValueError:
            self._drop("?", "frame is not JSON")
            return
        if not isinstance(payload, dict):
            self._drop("?", "frame is not a JSON-RPC object")
            return
        if "method" not in payload:
            self._on_response(payload)
            return
        request_id = payload.get("id")
        if payload.get("method") != "irn_subscription" or not isinstance(request_id, (int, str)):
            self._drop("?", f"unexpected relay request {str(payload.get('method'))[:40]}")
            return
        await ws.send(json.dumps({"id": request_id, "jsonrpc": "2.0", "result": True}))
        await self._on_subscription(str(request_id), payload.get("params"))

    def _on_response(self, payload: dict[str, object]) -> None:
        request_id = payload.get("id")
        future = self._pending.get(request_id) if isinstance(request_id, int) else None
        if future is None or future.done():
            return
        error = payload.get("error")
        if isinstance(error, dict):
            future.set_exception(RelayError(f"{error.get('code')}: {error.get('message')}"))
        else:
            future.set_result(payload.get("result"))

    async def _on_subscription(self, request_id: str, params: object) -> None:
        data = params.get("data") if isinstance(params, dict) else None
        if not isinstance(data, dict):
            self._drop("?", "irn_subscription without data")
            return
        topic, message, published = data.get("topic"), data.get("message"), data.get("publishedAt", 0)
        if not isinstance(topic, str) or not isinstance(message, str) or not isinstance(published, int):
            self._drop("?", "irn_subscription with malformed data")
            return
        if len(message) > self.max_message:
            self._drop(topic, f"oversized message ({len(message)} characters)")
            return
        if not self._seen_ids.add(request_id):
            self._drop(topic, f"replayed delivery id {request_id}")
            return
        digest = hashlib.sha256(f"{topic}:{message}".encode()).hexdigest()
        if not self._seen_messages.add(digest):
            self._drop(topic, "replayed message")
            return
        if topic not in self.handlers:
            self._drop(topic, "unknown topic")
            return
        self._inbox.put_nowait((topic, message, published))

    async def _dispatch(self) -> None:
        """Handlers run one at a time, in delivery order, off the reader (they may publish)."""
        while True:
            topic, message, published = await self._inbox.get()
            handler = self.handlers.get(topic)
            if handler is None:
                self._drop(topic, "unknown topic")
                continue
            try:
                outcome = handler(topic, message, published)
                if outcome is not None:
                    await outcome
            except Exception as error:  # a handler bug must not stop the shared connection
                log.error("walletconnect relay: handler for %s failed: %s: %s", topic[:12],
                          type(error).__name__, error)

    def _drop(self, topic: str, reason: str) -> None:
        self.dropped += 1
        log.warning("walletconnect relay: dropped message on %s: %s", topic[:12], reason)

    def _subscription_id(self, topic: str) -> str:
        return hashlib.sha256(f"{topic}{self.identity.client_id}".encode()).hexdigest()
