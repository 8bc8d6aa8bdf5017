"""Events for a session from outside its socket (a relay message, an email code confirmed, a
chain event), delivered on the engine process that owns the session: here, or published on that
process's channel of the store (Redis) and heard there. A base of `Hub` (server/hub.py).

An HTTP request about a session (the engine-origin frames' sign-in, approval and social posts)
may reach another host than the one holding the visitor's socket (issue 42): it reads the
session with `peek` (the owner's last save, without taking the session over) and hands its
event to `route`, so the socket's host applies it and the visitor's page sees it. Taking the
session over there instead (`find`) would leave the socket on a stale copy that hears nothing.

The same channel carries the relay of a linked phone's socket that landed on another process
than its session's (server/companion_relay.py): its envelopes are msgpack maps, a routed event
is an array; `_routed` hands the maps to the hub's `relay`."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..core.msg import Msg
from ..engine.named import from_data, to_data
from ..engine.persist import PersistError, blob_refs, load_bytes
from ..engine.update import ENGINE
from ..ports.clock import Clock
from ..runtime.runner import SessionRunner
from ..slices.model import Model
from ..store.base import SessionStore
from ..wire.codec import decode, encode

if TYPE_CHECKING:
    from .companion_relay import CompanionRelay

log = logging.getLogger(__name__)

LISTEN_RETRY_S = 1
MAX_ROUTE_HOPS = 2  # a routed event follows an owner that changed meanwhile at most this often


def is_relayed(data: bytes) -> bool:
    """Whether a message heard on this process's channel is a companion relay's envelope (a
    msgpack map), not a routed event (an array)."""
    return bool(data) and (0x80 <= data[0] <= 0x8F or data[0] in (0xDE, 0xDF))


class EventRouting:
    """The routing half of the hub (the attributes are the hub's)."""

    store: SessionStore
    clock: Clock
    relay: CompanionRelay | None = None  # the relayed phones' sockets (set by create_app)

    async def find(self, session_id: str) -> SessionRunner | None:
        raise NotImplementedError  # the hub's: the live session, restored when only saved

    async def peek(self, session_id: str) -> Model | None:
        """The session's state without taking it from another engine process that holds it
        (its lease): then the state that process saved last, read and not restored (events for
        it go through `route`); else the live session here, restored when only saved. None when
        it is gone."""
        holder = await self.store.leases.holder(session_id)
        if holder is None or holder == self.store.leases.worker_id:
            runner = await self.find(session_id)
            return None if runner is None else runner.session.model
        now = self.clock.now_ms()
        data = await self.store.load(session_id, now)
        if data is None:
            return None
        try:
            refs = blob_refs(data)
            session, _ = load_bytes(data, await self.store.load_blobs(refs, now) if refs else {})
        except PersistError as error:  # its owner drops it the same way when it restores it
            log.warning("session %s: saved state unreadable (%s)", session_id, error)
            return None
        return session.model if session.id == session_id else None

    async def route(self, session_id: str, msg: Msg, *, hops: int = 0) -> str:
        """Deliver `msg` to the session on the engine process that owns it: here (restoring it
        when it is only saved), or published on that process's Redis channel. An owner that is
        gone (nobody received it) is taken over here. "here", "forwarded" or "gone" (no such
        session)."""
        holder = await self.store.leases.holder(session_id)
        if holder is not None and holder != self.store.leases.worker_id and hops < MAX_ROUTE_HOPS:
            data = encode([session_id, to_data(msg), hops + 1])
            if await self.store.leases.publish(holder, data):
                return "forwarded"
            log.info("session %s: its owner %s is gone; taken over here", session_id, holder)
            await self.store.leases.claim(session_id)
        runner = await self.find(session_id)
        if runner is None:
            return "gone"
        runner.deliver(msg)
        return "here"

    async def _listen(self) -> None:
        """Hear events other processes route here, again after a lost connection to Redis."""
        while True:
            try:
                await self.store.leases.listen(self._routed)
                return  # a store only this process uses: nothing to hear
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the store is down (issue 27): one line, no traceback
                log.warning("listening for routed events failed (%s: %s); again in %d s",
                            type(error).__name__, error, LISTEN_RETRY_S)
                await asyncio.sleep(LISTEN_RETRY_S)

    async def _routed(self, data: bytes) -> None:
        """An event another process published to this one (see `route`), or a relayed phone's
        socket's envelope (server/companion_relay.py)."""
        if is_relayed(data):
            if self.relay is not None:
                await self.relay.heard(data)
            return
        try:
            session_id, raw, hops = decode(data)
            msg = from_data(raw, ENGINE.messages)
        except Exception:
            log.warning("a routed event could not be read; dropped")
            return
        # the owner may have changed meanwhile: route again (a bounded number of times)
        await self.route(str(session_id), msg, hops=int(hops))
