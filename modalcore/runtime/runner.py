"""A live session's inputs are processed one at a time, in arrival order, by its task: started
when an input arrives and ended once the inbox is empty, so an idle session holds no task, no
coroutine frame and no waiter (issue 17's idle memory; its socket's reader is the one task an
idle connection keeps).

Client frames, command results, timer firings, socket attach/detach all go through the
session's inbound queue (runtime/runner_inputs.py), so `update` never runs concurrently for a
session. The runner sends outbound frames on the attached socket (if any; the session keeps them
in its ring for resume) and runs the commands (runtime/commands.py), sends a bare `ack` when it
has had nothing to say for 1 s after a client frame, and saves the session after each batch of
inputs once one of its intents was applied (an unused session is never written, and leaves
memory UNUSED_SESSION_EVICT_MS after its socket closed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import IO, TypeVar

from ..chains.catalog import Network
from ..core.cmds import StartTimer
from ..core.msg import Msg
from ..core.services import ServiceContext
from ..engine.output import Output
from ..engine.persist import ModelPacker, PendingTimer, session_to_save
from ..engine.session import Session
from ..ports.clock import TimerHandle
from ..slices.options import HostOptions
from ..wire.frames import AnnouncedWallet, ClientFrame
from ..wire.serverframes import Ack, ServerFrame, encoded, error_frame
from .commands import Commands
from .deps import EffectRunner as EffectRunner, RunnerDeps as RunnerDeps
from .inbox import Inbox
from .runner_inputs import (AckDue, Attach, Deliver, Detach, Evict, FrameIn, Item, Leave, Outlet, SendError,
                            SessionClosing, Stop, TimerFired, TokenIssuer, TokenRefused, close_quietly)
from .runner_inputs import ACK_DELAY_MS as ACK_DELAY_MS, CompanionAckDue, CompanionAttach, CompanionDetach
from .companion import (CompanionSlot, close_companion, companion_ack, companion_attach, companion_detach,
                        companion_error, companion_frame, mirror, owns)

log = logging.getLogger(__name__)

_In = TypeVar("_In", bound=ClientFrame | Msg)  # what goes through the session: a frame, or a message

CLOSE_REPLACED = 4004
CLOSE_GOING_AWAY = 1001
CLOSE_LEFT = 1000


class SessionRunner:
    """One live session: its inbox, its lifecycle (start, attach, idle, evict, stop) and its
    saves; the commands `update` returns run through its `Commands` (runtime/commands.py)."""

    def __init__(
        self,
        session: Session,
        deps: RunnerDeps,
        *,
        timers: Iterable[PendingTimer] = (),
        record_file: IO[str] | None = None,
    ) -> None:
        self.session = session
        self.id = session.id
        self.deps = deps
        self.clock = deps.clock
        self.outlet: Outlet | None = None
        self.companion: CompanionSlot | None = None  # the linked phone's socket (runtime/companion.py)
        self.closing = False
        self.ended = False  # the host left: the saved state is deleted, not written
        self.finished: asyncio.Future[None] | None = None
        self.inbox: Inbox[Item] = Inbox()  # every input, in order (runtime/commands.py's and companion.py's too)
        self._task: asyncio.Task[None] | None = None
        self.commands = Commands(self)  # its timers, service calls and runtime effects in flight
        self._told = 0  # highest client seq any frame we sent has acknowledged
        self._ack_handle: TimerHandle | None = None
        self._idle_handle: TimerHandle | None = None
        self._record_file = record_file
        self._restored_timers: Sequence[PendingTimer] = tuple(timers)
        # a save re-packs only the slices that changed; made on the first save (a session never
        # used is never saved: its packer's deques were ~1.5 KiB of an idle session, issue 17)
        self._packer: ModelPacker | None = None

    # ----- lifecycle
    def start(self) -> None:
        if self.finished is not None:
            raise RuntimeError("runner already started")
        loop = asyncio.get_running_loop()
        self.finished = loop.create_future()
        now = self.clock.now_ms()
        for timer in self._restored_timers:
            self.commands.start_timer(StartTimer(timer.key, max(0, timer.due_ms - now), timer.msg), now)
        self._restored_timers = ()
        self._arm_idle()
        self.inbox.on_put = self._wake
        if not self.inbox.empty():
            self._wake()

    def _wake(self) -> None:
        """An input arrived: start the task that processes the inbox, unless it runs already or
        the session has ended."""
        if self._task is None and self.finished is not None and not self.finished.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"session-{self.id}")

    async def stop(self) -> None:
        """Save, close the socket (1001: the client should reconnect) and end the session."""
        if self.finished is None or self.finished.done():
            return
        self.inbox.put_nowait(Stop())
        await asyncio.shield(self.finished)

    # ----- inputs (callable from the socket task or clock callbacks; never block)
    def put_frame(self, frame: ClientFrame, outlet: Outlet) -> None:
        self.inbox.put_nowait(FrameIn(frame, outlet))

    def deliver(self, msg: Msg) -> None:
        self.inbox.put_nowait(Deliver(msg))

    async def attach(
        self,
        outlet: Outlet,
        issue: TokenIssuer,
        *,
        presented: int | None = None,
        resumed: bool,
        last: int | None,
        wallets: Sequence[AnnouncedWallet] = (),
        options: HostOptions | None = None,
        networks: Sequence[Network] = (),
    ) -> None:
        """Attach a socket and send it the welcome with a new token (`issue(generation)`);
        returns once the welcome went out.

        `presented` is the generation of the token a resuming client sent: TokenRefused when
        the session no longer accepts it. Raises SessionClosing when the session ended first
        (ask the hub for it again).
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait(Attach(outlet, issue, presented, resumed, last, done,
                                       tuple(wallets), options, tuple(networks)))
        await done

    def detach(self, outlet: Outlet) -> None:
        self.inbox.put_nowait(Detach(outlet))

    def evict(self) -> None:
        """Leave memory now if no socket is attached and no call is in flight (as at the end of
        the idle time); its saved state stays in the store."""
        self.inbox.put_nowait(Evict())

    def leave(self, outlet: Outlet) -> None:
        """The host destroyed the modal on that socket: end the session and forget it."""
        self.inbox.put_nowait(Leave(outlet))

    def send_error(self, outlet: Outlet, code: str, message: str, *, close: int | None = None) -> None:
        """An `error` frame on that socket, in order with the session's frames; then maybe close."""
        self.inbox.put_nowait(SendError(outlet, code, message, close))

    async def settled(self) -> None:
        """Wait until every queued input and in-flight service call has been processed."""
        while True:
            await self.inbox.join()
            if not self.commands.calls:
                return
            await asyncio.gather(*list(self.commands.calls), return_exceptions=True)

    # ----- the loop
    async def _run(self) -> None:
        """Process the inbox in batches until it is empty (the task ends: the next input starts
        another) or the session ends."""
        ended = True  # unless the inbox emptied (a cancelled task ends the session, as before)
        try:
            while not self.closing and not self.inbox.empty():
                items = [self.inbox.get_nowait()]
                while not self.inbox.empty():
                    items.append(self.inbox.get_nowait())
                try:
                    changed = False
                    for item in items:
                        if self.closing:
                            if isinstance(item, Attach) and not item.done.done():
                                item.done.set_exception(SessionClosing(self.id))
                            continue
                        changed = await self._process(item) or changed
                    if changed or self.closing:
                        await self._save()
                finally:
                    for _ in items:
                        self.inbox.task_done()
            ended = self.closing
        finally:
            if ended:
                await self._shutdown()  # the task stays set meanwhile: nothing starts another
            self._task = None  # no await since the inbox was seen empty: no input is missed

    async def _process(self, item: Item) -> bool:
        """Handle one input; True when the session may have changed. A frame, a message or a
        timer's message goes through the session (`_input`); the rest is the lifecycle."""
        now = self.clock.now_ms()
        try:
            match item:
                case FrameIn() if owns(self, item):  # the linked phone's socket
                    return await companion_frame(self, item, now)
                case CompanionAttach():
                    return await companion_attach(self, item, now)
                case CompanionDetach():
                    return companion_detach(self, item.outlet)
                case CompanionAckDue():
                    return await companion_ack(self, item.outlet)
                case SendError() if owns(self, item):  # a frame of the phone's refused unread
                    return await companion_error(self, item)
                case FrameIn() if item.outlet is self.outlet:  # a replaced socket's frames are ignored
                    await self._input(item.frame, self.session.receive, now)
                    if self.session.in_seq > self._told and self._ack_handle is None and self.outlet:
                        # a bare `ack` when nothing was sent for ACK_DELAY_MS after a client frame
                        self._ack_handle = self.clock.call_later(ACK_DELAY_MS, lambda: self.inbox.put_nowait(AckDue()))
                    return True
                case Deliver():
                    await self._input(item.msg, self.session.deliver, now)
                    return True
                case TimerFired():
                    timer = self.commands.timers.get(item.key)
                    if timer is None or timer.generation != item.generation:
                        return False  # cancelled or replaced after it fired
                    del self.commands.timers[item.key]
                    await self._input(timer.msg, self.session.deliver, now)
                    return True
                case Attach():
                    await self._attach(item, now)
                    return True
                case Detach() if item.outlet is self.outlet:
                    self.outlet = None
                    self._arm_idle()
                case Leave() if item.outlet is self.outlet:
                    self.outlet = None
                    self.ended = self.closing = True
                    await close_quietly(item.outlet, CLOSE_LEFT, "left")
                    log.info("session %s ended by its host", self.id)
                case SendError() if item.outlet is self.outlet:
                    await self._send([error_frame(item.code, item.message, self.session.in_seq)])
                    if item.close_code is not None and self.outlet is item.outlet:
                        self.outlet = None
                        await close_quietly(item.outlet, item.close_code, item.code)
                        self._arm_idle()
                case AckDue():
                    self._ack_handle = None
                    if self.outlet is not None and self.session.in_seq > self._told:
                        await self._send([Ack(0, self.session.in_seq)])
                case Evict() if self.outlet is None and not self.commands.calls:
                    self.closing = True
                case Evict():
                    self._arm_idle()
                case Stop():
                    self.closing = True
                    return True
        except Exception as error:  # one bad input must not end the session
            log.exception("session %s failed to process %s", self.id, type(item).__name__)
            self.commands.report_error(item, error)
            if isinstance(item, Attach) and not item.done.done():
                item.done.set_result(None)
        return False

    async def _input(self, cause: _In, step: Callable[[_In, int], Output], now: int) -> None:
        """One input through the session (decode, update, draw and diff), its output applied
        (frames sent, commands run) and observed."""
        before, effects = self.session.model, dict(self.session.effects)
        out = step(cause, now)
        await self.commands.apply(out, now)
        await self.commands.observe(before, effects, cause, out, now)

    async def _attach(self, item: Attach, now: int) -> None:
        if item.presented is not None and not self.session.accepts_token(item.presented, now):
            item.done.set_exception(TokenRefused(self.id))
            item.done.exception()  # retrieved here: the caller may be gone
            return
        token = item.issue(self.session.rotate_token(now, item.presented))
        previous = self.outlet
        self.outlet = item.outlet
        self._told = 0
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None
        if previous is not None and previous is not item.outlet:
            await close_quietly(previous, CLOSE_REPLACED, "replaced by a newer socket")
        try:
            before, effects = self.session.model, dict(self.session.effects)
            out = self.session.welcome(
                token, resumed=item.resumed, last=item.last, now=now, wallets=item.wallets,
                options=item.options, networks=item.networks,
            )
            await self.commands.apply(out, now)
            await self.commands.observe(before, effects, None, out, now)
        finally:
            if not item.done.done():
                item.done.set_result(None)

    async def _send(self, frames: list[ServerFrame]) -> None:
        await mirror(self, frames)  # the companion gets the tree the host page is sent
        outlet = self.outlet
        if outlet is None or not frames:
            return
        try:
            for frame in frames:
                await outlet.send_bytes(encoded(frame))  # a numbered frame's bytes: the ring's
                self._told = max(self._told, frame.a)
        except Exception:
            log.info("session %s: socket went away while sending", self.id)
            if self.outlet is outlet:
                self.outlet = None
                self._arm_idle()
            return
        if self.session.in_seq <= self._told and self._ack_handle is not None:
            self._ack_handle.cancel()
            self._ack_handle = None

    def _arm_idle(self) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
        self._idle_handle = None
        if self.outlet is None and not self.closing:
            delay = self.deps.idle_evict_ms
            if not self.session.acted:
                delay = min(delay, self.deps.unused_evict_ms)
            self._idle_handle = self.clock.call_later(
                delay, lambda: self.inbox.put_nowait(Evict())
            )

    # ----- persistence and shutdown
    async def _save(self, durable: bool = False) -> bool:
        """Hand the session to the store (which may write it behind; a save that fails is kept
        and retried, runtime/saves.py). True when there is nothing to save or it landed
        (`durable`: committed); False when it waits to be retried."""
        saves = self.deps.saves
        if saves is None:
            return True
        if self.ended:
            saves.forget(self.id)
            try:
                await saves.store.delete(self.id)
            except Exception:
                log.exception("session %s: deleting failed", self.id)
            return True
        if not self.session.acted:
            return True  # nothing a visitor did: nothing worth keeping past this process
        try:
            if self._packer is None:
                self._packer = ModelPacker(shared=True)
            saved = session_to_save(self.session, self.commands.pending_timers(), self._packer)
        except Exception:
            log.exception("session %s: packing its state failed", self.id)
            return False
        return await saves.save(self.id, saved.data, self.clock.now_ms(), saved.blobs, durable=durable)

    async def _shutdown(self) -> None:
        self.closing = True
        self.commands.cancel_all()
        for handle in (self._ack_handle, self._idle_handle):
            if handle is not None:
                handle.cancel()
        while not self.inbox.empty():  # inputs that arrived after the end are dropped
            item = self.inbox.get_nowait()
            if isinstance(item, Attach) and not item.done.done():
                item.done.set_exception(SessionClosing(self.id))
            self.inbox.task_done()
        if self.outlet is not None:
            await close_quietly(self.outlet, CLOSE_GOING_AWAY, "engine shutting down")
            self.outlet = None
        await close_companion(self, CLOSE_GOING_AWAY, "engine shutting down")
        if self._record_file is not None:
            self._record_file.close()
        if self.finished is not None and not self.finished.done():
            self.finished.set_result(None)
        if self.deps.on_closed is not None:
            self.deps.on_closed(self)
