"""What both websocket doors share (`/ws`, server/endpoint.py, and the phone's `/ws/companion`,
server/companion.py): the handshake's typed refusal, the join frame read within
JOIN_TIMEOUT_S, and the frames after the join handed to the session runner."""

from __future__ import annotations

import asyncio

from ..rules.limits import JOIN_TIMEOUT_S, TOO_LARGE_LIMIT
from ..runtime.runner import SessionRunner
from ..wire.codec import MAX_FRAME_BYTES
from ..wire.frames import FrameError, Intent, Join, Leave, parse_client_frame
from ..wire.serverframes import Goodbye, encoded, error_frame
from .metrics import MeteredOutlet, Metrics
from .socket import Message, Socket

CLOSE_NOT_JOINED = 4003
CLOSE_TOO_LARGE = 1009
CLOSE_TOO_MANY_SESSIONS = 4005


class Gone(Exception):
    """The client left during the handshake."""


class Refused(Exception):
    """The handshake ends: send `t` {code, message}, then close the socket with `close_code`."""

    def __init__(self, code: str, message: str, close_code: int, goodbye: bool = False) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.close_code = close_code
        self.goodbye = goodbye  # a `goodbye` frame (the session ends) rather than an `error`


def too_many(cap: int) -> Refused:
    """The refusal of a socket past its client address's cap (server/addresses.py)."""
    return Refused("too_many_sessions", f"this address holds {cap} sessions already", CLOSE_TOO_MANY_SESSIONS)


async def first_frame(ws: Socket) -> Join:
    try:
        message = await asyncio.wait_for(ws.receive(), JOIN_TIMEOUT_S)
    except TimeoutError as error:
        raise Refused("not_joined", "no join frame in time", CLOSE_NOT_JOINED) from error
    if message["type"] == "websocket.disconnect":
        raise Gone()
    data = message.get("bytes")
    if data is None:
        raise Refused("not_joined", "the first frame must be a binary join", CLOSE_NOT_JOINED)
    try:
        frame = parse_client_frame(data)
    except FrameError as error:
        raise Refused("not_joined", f"the first frame must be a join ({error.message})",
                      CLOSE_NOT_JOINED) from error
    if not isinstance(frame, Join):
        raise Refused("not_joined", "the first frame must be a join", CLOSE_NOT_JOINED)
    return frame


class FrameReader:
    """Hands each message a socket received to its session runner."""

    __slots__ = ("outlet", "runner", "metrics", "too_large")

    def __init__(self, outlet: MeteredOutlet, runner: SessionRunner, metrics: Metrics) -> None:
        self.outlet = outlet
        self.runner = runner
        self.metrics = metrics
        self.too_large = 0

    def take(self, message: Message) -> bool:
        """Pass one message on; False once the client has left."""
        if message["type"] == "websocket.disconnect":
            return False
        runner, outlet = self.runner, self.outlet
        data = message.get("bytes")
        if data is None:
            runner.send_error(outlet, "malformed", "text frames are refused: send binary msgpack")
            return True
        if len(data) > MAX_FRAME_BYTES:
            self.too_large += 1
            close = CLOSE_TOO_LARGE if self.too_large >= TOO_LARGE_LIMIT else None
            runner.send_error(outlet, "too_large", f"frames are at most {MAX_FRAME_BYTES} bytes",
                              close=close)
            return True
        try:
            frame = parse_client_frame(data)
        except FrameError as error:
            runner.send_error(outlet, error.code, error.message)
            return True
        if isinstance(frame, Join):
            runner.send_error(outlet, "malformed", "this socket has already joined")
            return True
        if isinstance(frame, Leave):
            runner.leave(outlet)
            return True
        if isinstance(frame, Intent):
            self.metrics.intent_read(frame)
        runner.put_frame(frame, outlet)
        return True


async def refuse(ws: Socket, refused: Refused) -> None:
    frame = (Goodbye(0, 0, refused.code, refused.message) if refused.goodbye
             else error_frame(refused.code, refused.message))
    try:
        await ws.send_bytes(encoded(frame))
    except Exception:
        return
    await close(ws, refused.close_code)


async def close(ws: Socket, code: int, reason: str | None = None) -> None:
    try:
        await ws.close(code, reason)
    except Exception:
        pass
