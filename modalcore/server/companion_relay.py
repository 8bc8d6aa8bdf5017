"""The phone's `/ws/companion` socket relayed to the engine process that holds its session
(issue 44 item 1, several hosts; docs/contributors/notes-phone44.md).

With several engine processes behind a balancer, the phone's socket may land on another
process than the one holding the computer's socket (the session's owner, `store.leases`).
Taking the session over there, as a host page's rejoin does, would leave the computer's socket
on a stale copy; so the socket is relayed, over the channel routed events already use
(`store.leases.publish` to a process, heard by its `listen`, server/routing.py):

- the phone's process checks the join over `peek` (the owner's last save) and spends its nonce
  (server/companion.py), then publishes `attach` {session, socket id, key, its worker id} to the
  owner, and each frame the phone sends as `frame` (its bytes, unread), `detach` when the
  socket ends;
- the owner checks its live session still links that key, attaches a `RelayOutlet` as the
  session's companion (runtime/companion.py: one model, one `update`) and reads the relayed
  frames with the socket edge's own `FrameReader`, as if the socket were its own; the outlet's
  `send_bytes` / `close` publish `send` / `close` to the phone's process, keyed by socket id;
- the phone's process pings the owner every PING_S; an owner that does not answer for
  SILENT_S, whose channel has no listener (the process is gone), or that no longer holds the
  session (it moved) closes the phone's socket 1001: its page asks a fresh nonce and joins
  again, where the session is then.

An envelope is a msgpack map `{"relay": kind, "socket": id, "session": id, "worker": sender,
…}`, beside the routed event's array `[session, msg, hops]` (`routing._routed` tells them apart
by their first byte). Every field is bounded; an envelope that is not well formed is dropped
with one log line. What the phone sends stays hostile until the owner's `FrameReader` read it:
a frame is relayed cut at MAX_FRAME_BYTES + 1 bytes (the owner refuses it `too_large` as its own
socket would); frames waiting for a slow phone's socket are bounded (QUEUE, then 1001)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgpack

from ..rules.limits import DEVICE_KEY_CHARS, MAX_FRAME_BYTES
from ..runtime.companion import detach_companion, queue_attach
from ..slices.handoff import linked_key
from ..wire.codec import encode
from ..wire.serverframes import encoded, error_frame
from .endpoint import FrameReader
from .handshake import close
from .metrics import MeteredOutlet

if TYPE_CHECKING:
    from ..runtime.runner import SessionRunner
    from ..wire.frames import CompanionJoin
    from .hub import Hub
    from .metrics import Metrics
    from .socket import Socket

log = logging.getLogger(__name__)

PING_S = 2.0  # the phone's process asks the owner this often whether it still holds the socket
SILENT_S = 8.0  # an owner not heard from for this long has stopped answering: the phone's socket closes 1001
QUEUE = 256  # frames waiting for a slow phone's socket; past it the socket closes 1001
ENVELOPE_BYTES = 4 * 1024 * 1024  # a relayed server frame (a snapshot) with its envelope, at most
ID_CHARS = 64  # a socket, session or worker id in an envelope, at most
KEY_CHARS = DEVICE_KEY_CHARS  # the phone's public key (as `join.companion.public_key`)
CLOSE_GOING_AWAY = 1001
CLOSE_REFUSED = 4006  # as companion.CLOSE_COMPANION_REFUSED (not imported: companion.py imports this module)
SENT_CLOSES = (1000, 1001, 1008, 1009, 1011)  # the closes below 3000 the owner may ask for (else 1001)
TEXT = {"type": "websocket.receive", "text": ""}  # a text frame, as FrameReader sees one (refused `malformed`)


class RelayGone(ConnectionError):
    """The phone's process no longer listens (or its socket ended): nothing reaches the phone."""


def envelope(kind: str, socket: str, session: str, sender: str, **fields: object) -> dict[str, object]:
    """An envelope of `kind` about the phone's socket `socket` (of `session`), sent by the
    process `sender`."""
    return {"relay": kind, "socket": socket, "session": session, "worker": sender, **fields}


@dataclass(frozen=True)
class Heard:
    """An envelope heard on this process's channel, its ids checked."""

    kind: str
    socket: str
    session: str
    worker: str  # the process that sent it
    fields: dict[str, object]

    def get(self, name: str) -> object:
        return self.fields.get(name)


def _read(data: bytes) -> Heard | None:
    """The envelope's fields, checked; None when it is not well formed."""
    if len(data) > ENVELOPE_BYTES:
        return None
    try:
        got: object = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception:
        return None
    if not isinstance(got, dict) or len(got) > 8:
        return None
    ids = [got.get(name) for name in ("relay", "socket", "session", "worker")]
    texts = [value for value in ids if isinstance(value, str) and 0 < len(value) <= ID_CHARS]
    if len(texts) != len(ids):
        return None
    kind, socket, session, worker = texts
    return Heard(kind, socket, session, worker, got)


class RelayOutlet:
    """The owner's side of a relayed phone's socket: what the runner sends it is published to the
    phone's process."""

    __slots__ = ("relay", "worker", "socket", "session", "gone")

    def __init__(self, relay: CompanionRelay, worker: str, socket: str, session: str) -> None:
        self.relay, self.worker, self.socket, self.session = relay, worker, socket, session
        self.gone = False

    async def send_bytes(self, data: bytes) -> None:
        if self.gone or not await self.relay.publish(self.worker, self._envelope("send", data=data)):
            self._forget()
            raise RelayGone(self.socket)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        if self.gone:
            return
        self._forget()
        await self.relay.publish(self.worker, self._envelope("close", code=code, reason=(reason or "")[:120]))

    def _forget(self) -> None:
        self.gone = True
        self.relay.relayed.pop(self.socket, None)

    def _envelope(self, kind: str, **fields: object) -> dict[str, object]:
        return envelope(kind, self.socket, self.session, self.relay.worker, **fields)


@dataclass
class Relayed:
    """On the owner: a phone's socket of another process, attached to a live session here."""

    runner: SessionRunner
    outlet: MeteredOutlet
    reader: FrameReader
    attached: asyncio.Future[None]  # set once the session took it as its companion


@dataclass
class PhoneSocket:
    """On the phone's process: its socket, relayed to the session's owner."""

    ws: Socket
    owner: str
    session: str
    socket: str
    queue: asyncio.Queue[bytes | tuple[int, str]] = field(default_factory=lambda: asyncio.Queue(QUEUE))
    heard: float = field(default_factory=lambda: asyncio.get_running_loop().time())
    ended: bool = False  # closed here or by the owner: nothing more is relayed either way
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class CompanionRelay:
    """Both sides of relayed companion sockets on one engine process (the hub's `relay`)."""

    def __init__(self, hub: Hub, metrics: Metrics) -> None:
        self.hub, self.metrics = hub, metrics
        self.relayed: dict[str, Relayed] = {}  # owner side: socket id -> the attached companion
        self.phones: dict[str, PhoneSocket] = {}  # phone side: socket id -> the phone's socket here

    @property
    def worker(self) -> str:
        return self.hub.store.leases.worker_id

    async def publish(self, worker: str, sent: dict[str, object]) -> bool:
        """Send an envelope to that process; False when nobody heard it or the store failed."""
        try:
            return bool(await self.hub.store.leases.publish(worker, encode(sent)))
        except Exception as error:  # the store is down: one line, no traceback
            log.warning("companion relay: publishing failed (%s)", type(error).__name__)
            return False

    async def owner(self, session: str) -> str | None:
        """The other engine process holding `session`; None when it is this one, nobody, or
        the store cannot say."""
        try:
            holder = await self.hub.store.leases.holder(session)
        except Exception as error:
            log.warning("companion relay: the session's owner not read (%s)", type(error).__name__)
            return None
        return holder if holder is not None and holder != self.worker else None

    async def _holder(self, phone: PhoneSocket) -> str:
        """The process holding the phone's session now (this one, maybe); its owner as known
        when nobody holds it or the store cannot say (then the ping decides)."""
        try:
            holder = await self.hub.store.leases.holder(phone.session)
        except Exception as error:
            log.warning("companion relay: the session's owner not read (%s)", type(error).__name__)
            return phone.owner
        return holder if holder is not None else phone.owner

    # ----- the phone's process
    async def serve(self, ws: Socket, join: CompanionJoin, owner: str) -> None:
        """Relay the joined phone's socket to `owner` until either side ends it."""
        phone = PhoneSocket(ws, owner, join.session, secrets.token_urlsafe(16))
        self.phones[phone.socket] = phone
        loop = asyncio.get_running_loop()
        phone.tasks = [loop.create_task(self._write(phone)), loop.create_task(self._watch(phone))]
        try:
            if await self._to_owner(phone, "attach", key=join.public_key):
                log.info("session %s: its linked phone joined as companion, relayed to %s", phone.session, owner)
            else:
                await self._end(phone, "its owner is gone")
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if phone.ended:
                    continue  # closing: nothing more goes to the owner
                data = message.get("bytes")
                if data is not None and len(data) > MAX_FRAME_BYTES:
                    data = data[:MAX_FRAME_BYTES + 1]  # refused `too_large` by the owner all the same
                if not await self._to_owner(phone, "frame", data=data):
                    await self._end(phone, "its owner is gone")
        finally:
            self.phones.pop(phone.socket, None)
            for task in phone.tasks:
                task.cancel()
            await asyncio.gather(*phone.tasks, return_exceptions=True)
            await self._to_owner(phone, "detach")

    async def _to_owner(self, phone: PhoneSocket, kind: str, **fields: object) -> bool:
        return await self.publish(phone.owner, envelope(kind, phone.socket, phone.session, self.worker, **fields))

    async def _write(self, phone: PhoneSocket) -> None:
        """The owner's frames to the phone's socket, in order; its close ends the relay."""
        while True:
            item = await phone.queue.get()
            if isinstance(item, tuple):
                phone.ended = True
                await close(phone.ws, *item)
                return
            try:
                await phone.ws.send_bytes(item)
            except Exception:
                return  # the phone left: the reading loop ends the relay

    async def _watch(self, phone: PhoneSocket) -> None:
        """Ping the owner; close the phone's socket 1001 once the owner stops answering or no
        longer holds the session."""
        loop = asyncio.get_running_loop()
        while not phone.ended:
            await asyncio.sleep(PING_S)
            if loop.time() - phone.heard > SILENT_S:
                await self._end(phone, "its owner stopped answering")
            elif await self._holder(phone) != phone.owner:
                await self._end(phone, "the session moved to another engine process")
            elif not await self._to_owner(phone, "ping"):
                await self._end(phone, "its owner is gone")

    async def _end(self, phone: PhoneSocket, why: str) -> None:
        """Close the phone's socket 1001 (it joins again), whatever waits for it."""
        if phone.ended:
            return
        phone.ended = True
        log.info("session %s: the relayed phone's socket closed: %s", phone.session, why)
        writer = phone.tasks[0] if phone.tasks else None
        if writer is not None and writer is not asyncio.current_task():
            writer.cancel()  # what it still holds for the phone is dropped
        await close(phone.ws, CLOSE_GOING_AWAY, "join again")

    async def close(self) -> None:
        """The engine stops: every phone relayed from here closes 1001 (it joins again)."""
        await asyncio.gather(*(self._end(phone, "engine shutting down") for phone in list(self.phones.values())),
                             return_exceptions=True)

    # ----- what this process's channel heard
    async def heard(self, data: bytes) -> None:
        got = _read(data)
        if got is None:
            log.warning("a companion relay envelope could not be read; dropped")
            return
        kind, socket = got.kind, got.socket
        if kind in ("send", "close", "pong"):
            await self._from_owner(got, self.phones.get(socket))
            return
        relayed = self.relayed.get(socket)
        if kind == "attach":
            await self._attach(got)
        elif relayed is None:  # its companion ended here: the phone's process closes it
            if kind != "detach":
                await self._reply(got, "close", code=CLOSE_GOING_AWAY, reason="join again")
        elif kind == "frame":
            raw = got.get("data")
            message = {"type": "websocket.receive", "bytes": raw} if isinstance(raw, bytes) else TEXT
            relayed.reader.take(message)
        elif kind == "ping" and self._stale(relayed):  # the session ended, or the phone was replaced
            self.relayed.pop(socket, None)
            await self._reply(got, "close", code=CLOSE_GOING_AWAY, reason="join again")
        elif kind == "ping":
            await self._reply(got, "pong")
        elif kind == "detach":
            self.relayed.pop(socket, None)
            detach_companion(relayed.runner, relayed.outlet)

    async def _from_owner(self, got: Heard, phone: PhoneSocket | None) -> None:
        if phone is None or phone.owner != got.worker:
            if got.kind == "send":  # a socket that ended here: the owner forgets it
                await self._reply(got, "detach")
            return
        phone.heard = asyncio.get_running_loop().time()
        if phone.ended or got.kind == "pong":
            return
        if got.kind == "close":
            code, reason = got.get("code"), got.get("reason")
            item: bytes | tuple[int, str] = (code if code in SENT_CLOSES or (isinstance(code, int) and 3000 <= code <= 4999)
                                             else CLOSE_GOING_AWAY, reason[:120] if isinstance(reason, str) else "")
        else:
            raw = got.get("data")
            if not isinstance(raw, bytes):
                return
            item = raw
        try:
            phone.queue.put_nowait(item)
        except asyncio.QueueFull:
            phone.tasks.append(asyncio.get_running_loop().create_task(self._end(phone, "too slow to take its frames")))

    async def _attach(self, got: Heard) -> None:
        """A phone's socket of another process joins a session held here (its join was checked
        there over this session's last save; its key is checked again on the live session)."""
        session, key = got.session, got.get("key")
        if got.socket in self.relayed:
            log.warning("a companion relay attached the same socket twice; dropped")
            return
        runner = self.hub.runners.get(session) if self.hub.is_live(session) else None
        if runner is None or not await self._owns(session):
            code, text = "unknown_link", "no live session of that id"
        elif not isinstance(key, str) or len(key) > KEY_CHARS or linked_key(runner.session.model) != key:
            code, text = "not_linked", "not the phone linked to this session"
        else:
            outlet = MeteredOutlet(RelayOutlet(self, got.worker, got.socket, session), self.metrics)
            attached = queue_attach(runner, outlet, key)  # before the frames heard next: in the inbox's order
            self.relayed[got.socket] = Relayed(runner, outlet, FrameReader(outlet, runner, self.metrics),
                                                       attached)
            log.info("session %s: a linked phone joined as companion through %s", session, got.worker)
            return
        log.info("relayed companion join refused: %s", code)
        await self._reply(got, "send", data=encoded(error_frame(code, text)))
        await self._reply(got, "close", code=CLOSE_REFUSED, reason=code)

    @staticmethod
    def _stale(relayed: Relayed) -> bool:
        """The session here no longer has that socket as its companion."""
        runner = relayed.runner
        if runner.closing or (runner.finished is not None and runner.finished.done()):
            return True
        slot = runner.companion
        return relayed.attached.done() and (slot is None or slot.outlet is not relayed.outlet)

    async def _owns(self, session: str) -> bool:
        try:
            return await self.hub.store.leases.owns(session)
        except Exception:
            return True  # the store cannot say: the live copy is served (as Hub._owns)

    async def _reply(self, heard: Heard, kind: str, **fields: object) -> None:
        await self.publish(heard.worker, envelope(kind, heard.socket, heard.session, self.worker, **fields))
