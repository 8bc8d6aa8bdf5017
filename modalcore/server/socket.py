"""The `/ws` socket as plain ASGI: what the endpoint reads off the handshake scope, and the
receive/send/close it needs, without Starlette's WebSocket, router and middleware coroutines.

An idle session's socket is held for hours; Starlette's per-connection wrapping (a WebSocket
with its parsed headers, the router's and the exception middleware's coroutine frames and
closures) cost ~5 KiB of each (issue 17's idle figure). The engine app (`app.EngineApp`) hands
`/ws` here directly; every other route still goes through Starlette.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class SocketClosed(RuntimeError):
    """A send or receive on a socket that was closed (by either side)."""


class Socket:
    """One websocket connection (ASGI `websocket` scope); sends binary frames only."""

    __slots__ = ("project", "origin", "client_host", "engine_url", "_receive", "_send", "_closed", "_gone")

    def __init__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"").decode("latin-1")
        # the last value of a repeated parameter wins, as Starlette's QueryParams has it
        self.project = dict(parse_qsl(query, keep_blank_values=True)).get("project", "")
        self.origin: str | None = None
        host = ""
        for name, value in scope.get("headers", ()):
            if name == b"origin" and self.origin is None:
                self.origin = value.decode("latin-1")
            elif name == b"host" and not host:
                host = value.decode("latin-1")
        # the engine as this browser reached it (http/https for ws/wss): what a link to the engine's
        # pages names when the operator set no public_url (issue 44 item 1)
        scheme = "https" if scope.get("scheme") == "wss" else "http"
        self.engine_url = f"{scheme}://{host}" if host else ""
        client = scope.get("client")
        self.client_host = str(client[0]) if client else ""
        self._receive = receive
        self._send = send
        self._closed = False  # a close was sent or the client left: nothing more is sent
        self._gone = False  # the client left: nothing more is received

    async def accept(self) -> None:
        message = await self._receive()
        if message["type"] != "websocket.connect":
            self._closed = self._gone = True
            raise SocketClosed(f"expected websocket.connect, got {message['type']}")
        await self._send({"type": "websocket.accept"})

    async def receive(self) -> Message:
        """The next `websocket.receive` or `websocket.disconnect` message (again a disconnect
        once the client has left)."""
        if self._gone:
            return {"type": "websocket.disconnect", "code": 1006}
        message = await self._receive()
        if message["type"] == "websocket.disconnect":
            self._closed = self._gone = True
        return message

    async def send_bytes(self, data: bytes) -> None:
        if self._closed:
            raise SocketClosed("the socket is closed")
        await self._send({"type": "websocket.send", "bytes": data})

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close once; closing a closed socket does nothing."""
        if self._closed:
            return
        self._closed = True
        await self._send({"type": "websocket.close", "code": code, "reason": reason or ""})

    @property
    def closed(self) -> bool:
        return self._closed
