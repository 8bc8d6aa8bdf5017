"""uvicorn's websocket protocol (its `websockets-sansio` implementation, uvicorn's default)
with less held per open connection (issue 17's idle figure).

Per connection, uvicorn's protocol keeps for the socket's whole life:
- the handshake's request and response objects (their header maps, ~3 KiB) although nothing
  reads them once the response went out: dropped (the request's headers emptied) once the
  socket is accepted;
- an `asyncio.Queue` (three deques and an Event, ~4 KiB) for the ASGI receive side, and an
  `asyncio.Event` for write back-pressure: replaced by the runner's `Inbox` and a one-waiter
  flag with the same semantics.

It also writes less often: the frames a session sends in one event-loop turn (an intent's
ack, patch and host events) leave in one `transport.write` (one syscall, one wake-up of the
client) at the end of that turn, instead of one write each. Frames still leave in order: every
other write (close, ping, pong) drains the same websockets output buffer first.

Nothing else changes: the same frame parser, `ws_max_size`, keepalive pings, close handshake and
write back-pressure (`pause_writing`/`resume_writing`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.utils import ClientDisconnected
from websockets.exceptions import InvalidState
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from ..runtime.inbox import Inbox


class _Flag:
    """What uvicorn uses of `asyncio.Event` (set, clear, is_set, wait), without the deque of
    waiters allocated up front."""

    __slots__ = ("_value", "_waiters")

    def __init__(self) -> None:
        self._value = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        self._value = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> bool:
        if self._value:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.queue: Any = Inbox()  # put_nowait, get, empty: as asyncio.Queue's
        self.writable: Any = _Flag()
        self.writable.set()
        self.flush_due = False

    async def send(self, message: Any) -> None:
        if (message["type"] == "websocket.send" and self.handshake_complete
                and not self.close_sent and self.initial_response is None):
            await self.writable.wait()
            if self.disconnected:
                raise ClientDisconnected()
            data = message.get("bytes")
            try:
                if data is not None:
                    self.conn.send_binary(data)
                else:
                    self.conn.send_text(str(message.get("text", "")).encode())
            except InvalidState as error:
                raise ClientDisconnected() from error
            if not self.flush_due:
                self.flush_due = True
                self.loop.call_soon(self.flush)
            return
        await super().send(message)
        if self.handshake_complete and "response" in self.__dict__:
            # The handshake is over: its request and response are never read again. The
            # request's headers are emptied in place too: the websockets parser's generator
            # frame keeps the request object alive for the connection's life.
            self.request.headers.clear()
            del self.request, self.response

    def flush(self) -> None:
        """Write what the frames sent in this event-loop turn put in the output buffer."""
        self.flush_due = False
        output = self.conn.data_to_send()
        if output and not self.transport.is_closing():
            self.transport.write(b"".join(output))
