"""What reaches a session's runner (runtime/runner.py): the socket it sends on, and the items of
its inbox, one class per kind of input, processed one at a time in arrival order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..chains.catalog import Network
from ..core.msg import Msg
from ..slices.options import HostOptions
from ..wire.frames import AnnouncedWallet, ClientFrame

TokenIssuer = Callable[[int], str]  # generation -> the signed resume token


class SessionClosing(RuntimeError):
    """The session ended (evicted or engine stopping) before the socket could attach."""


class TokenRefused(RuntimeError):
    """The resume token's generation was rotated out (PROTOCOL.md, "Resume")."""


class Outlet(Protocol):
    """The sending half of a websocket (Starlette's WebSocket fits)."""

    async def send_bytes(self, data: bytes) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


@dataclass(frozen=True, init=False)
class FrameIn:
    frame: ClientFrame
    outlet: Outlet

    def __init__(self, frame: ClientFrame, outlet: Outlet) -> None:
        # one per client frame: `object.__setattr__` per field (a frozen dataclass's own
        # __init__) cost ~1 k instructions a field
        self.__dict__.update(frame=frame, outlet=outlet)


@dataclass(frozen=True)
class Deliver:
    msg: Msg


@dataclass(frozen=True)
class TimerFired:
    key: str
    generation: int


@dataclass(frozen=True)
class Attach:
    outlet: Outlet
    issue: TokenIssuer
    presented: int | None  # the generation of the token the client resumed with
    resumed: bool
    last: int | None
    done: asyncio.Future[None]
    wallets: tuple[AnnouncedWallet, ...] = ()
    options: HostOptions | None = None
    networks: tuple[Network, ...] = ()


@dataclass(frozen=True)
class Detach:
    outlet: Outlet


@dataclass(frozen=True)
class Leave:
    outlet: Outlet


@dataclass(frozen=True)
class SendError:
    outlet: Outlet
    code: str
    message: str
    close_code: int | None = None


@dataclass(frozen=True)
class AckDue:
    pass


@dataclass(frozen=True)
class Evict:
    pass


@dataclass(frozen=True)
class Stop:
    pass


@dataclass(frozen=True)
class CompanionAttach:
    """The linked phone's socket joins the session as its companion (runtime/companion.py)."""

    outlet: Outlet
    public_key: str  # the phone's key the computer confirmed (the companion lives while it is linked)
    done: asyncio.Future[None]


@dataclass(frozen=True)
class CompanionDetach:
    outlet: Outlet


@dataclass(frozen=True)
class CompanionAckDue:
    """The companion's bare `ack` is due (runtime/companion.py), if nothing acknowledged its frames meanwhile."""

    outlet: Outlet


Item = (
    FrameIn | Deliver | TimerFired | Attach | Detach | Leave | SendError | AckDue | Evict
    | Stop | CompanionAttach | CompanionDetach | CompanionAckDue
)

ACK_DELAY_MS = 1000  # a bare `ack` when nothing was sent to a socket for this long after its client's frame


async def close_quietly(outlet: Outlet, code: int, reason: str) -> None:
    try:
        await outlet.close(code, reason)
    except Exception:
        pass
