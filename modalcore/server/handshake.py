"""What both websocket doors share (`/ws`, server/endpoint.py, and the phone's `/ws/companion`,
server/companion.py) up to the join: the handshake's typed refusal, sent then closed, and the
join frame read within JOIN_TIMEOUT_S. (The frames after the join go to the runner through
endpoint.FrameReader, the socket edge's one routing place: docs/contributors/architecture.md.)"""

from __future__ import annotations

import asyncio

from ..rules.limits import JOIN_TIMEOUT_S
from ..wire.frames import FrameError, Join, parse_client_frame
from ..wire.serverframes import Goodbye, encoded, error_frame
from .socket import Socket

CLOSE_NOT_JOINED = 4003
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
