"""The runner's companion outlet (PROTOCOL.md, "Companion"; engine/companion.py): the linked
phone's socket beside the host page's. Its inputs go through the session's inbox like every
other (`CompanionAttach`, `CompanionDetach`, and its frames as `FrameIn` of its outlet), so
`update` never runs concurrently; an intent from the phone is an intent of the session, and
every step the runner sends to the host page is mirrored to the phone (`mirror`, called from
the runner's `_send`).

At most one companion per session: a new one closes the previous socket (4004, as a newer
tab does to the host's). Like the host page's socket, the companion gets a bare `ack` when
nothing was sent to it for ACK_DELAY_MS after a frame of its (`CompanionAckDue`), and an
`error` frame for a frame refused before the session saw it (`SendError`, then maybe a close). Nothing of it is saved; the session's idle eviction does not wait
for it (the host page's socket is the session's)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..engine.companion import NOT_LINKED, Companion
from ..ports.clock import TimerHandle
from ..wire.serverframes import Ack, ServerFrame, encoded, error_frame
from .runner_inputs import (ACK_DELAY_MS, CompanionAckDue, CompanionAttach, CompanionDetach, FrameIn, Outlet, SendError,
                            close_quietly)

if TYPE_CHECKING:
    from .runner import SessionRunner

log = logging.getLogger(__name__)

CLOSE_REPLACED = 4004  # as runner.CLOSE_REPLACED (not imported: runner imports this module)
CLOSE_UNLINKED = 4006  # as a refused companion join (PROTOCOL.md, "Companion")


class CompanionSlot:
    """The companion's socket and its wire state."""

    __slots__ = ("outlet", "companion", "told", "ack_handle")

    def __init__(self, outlet: Outlet, companion: Companion) -> None:
        self.outlet = outlet
        self.companion = companion
        self.told = 0  # the highest frame of the phone's a frame sent to it acknowledged
        self.ack_handle: TimerHandle | None = None  # its bare `ack`, when due

    def drop_ack(self) -> None:
        if self.ack_handle is not None:
            self.ack_handle.cancel()
            self.ack_handle = None


async def attach_companion(runner: SessionRunner, outlet: Outlet, public_key: str) -> None:
    """Join `outlet` to the runner's session as its companion (the phone of `public_key`);
    returns once the welcome went out."""
    await queue_attach(runner, outlet, public_key)


def queue_attach(runner: SessionRunner, outlet: Outlet, public_key: str) -> asyncio.Future[None]:
    """`attach_companion` queued now, before any input queued after this call (a relayed phone's
    frames, server/companion_relay.py); the future is set once the welcome went out."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    runner.inbox.put_nowait(CompanionAttach(outlet, public_key, done))
    return done


def detach_companion(runner: SessionRunner, outlet: Outlet) -> None:
    runner.inbox.put_nowait(CompanionDetach(outlet))


def owns(runner: SessionRunner, item: FrameIn | SendError) -> bool:
    """The input came from the companion's socket."""
    slot = runner.companion
    return slot is not None and item.outlet is slot.outlet


def _slot_of(runner: SessionRunner, outlet: Outlet) -> CompanionSlot | None:
    """The companion's slot, when `outlet` is still its socket."""
    slot = runner.companion
    return slot if slot is not None and slot.outlet is outlet else None


async def companion_attach(runner: SessionRunner, item: CompanionAttach, now: int) -> bool:
    """The phone's socket joins (replacing a previous one); False: the session did not change."""
    try:
        previous = runner.companion
        slot = CompanionSlot(item.outlet, Companion(runner.session, now, item.public_key))
        runner.companion = slot
        if previous is not None:
            previous.drop_ack()
        if previous is not None and previous.outlet is not item.outlet:
            await close_quietly(previous.outlet, CLOSE_REPLACED, "replaced by a newer socket")
        await _send(runner, slot, slot.companion.welcome())
    finally:
        if not item.done.done():
            item.done.set_result(None)
    return False


def _forget(runner: SessionRunner, slot: CompanionSlot) -> None:
    """The session has no companion any more (a recording notes it: `companion_left`)."""
    slot.drop_ack()
    if runner.companion is slot:
        runner.companion = None
        if runner.session.recorder:
            runner.session.recorder.companion_left(runner.clock.now_ms())


def companion_detach(runner: SessionRunner, outlet: Outlet) -> bool:
    """The phone's socket closed."""
    slot = _slot_of(runner, outlet)
    if slot is not None:
        _forget(runner, slot)
    return False


async def companion_ack(runner: SessionRunner, outlet: Outlet) -> bool:
    """The phone's bare `ack`, unless a frame sent to it meanwhile acknowledged its frames."""
    slot = _slot_of(runner, outlet)
    if slot is not None:
        slot.ack_handle = None
        if slot.companion.in_seq > slot.told:
            await _send(runner, slot, [Ack(0, slot.companion.in_seq)])
    return False


async def companion_error(runner: SessionRunner, item: SendError) -> bool:
    """A frame of the phone's refused before the session saw it: its `error`, then maybe a close."""
    slot = _slot_of(runner, item.outlet)
    if slot is not None:
        await _send(runner, slot, [error_frame(item.code, item.message, slot.companion.in_seq)])
        if item.close_code is not None and runner.companion is slot:
            await close_companion(runner, item.close_code, item.code)
    return False


async def companion_frame(runner: SessionRunner, item: FrameIn, now: int) -> bool:
    """A frame from the phone: its own frames back to it, the session's output to the host page
    and the runtime (whose `_send` mirrors nothing more: the phone has that tree already)."""
    slot = runner.companion
    assert slot is not None
    before, effects = runner.session.model, dict(runner.session.effects)
    mine, out = slot.companion.receive(item.frame, now)
    if slot.companion.linked:
        await _send(runner, slot, mine)
    if runner.companion is slot and slot.companion.in_seq > slot.told and slot.ack_handle is None:
        # a bare `ack` when nothing was sent to the phone for ACK_DELAY_MS after its frame
        slot.ack_handle = runner.clock.call_later(ACK_DELAY_MS, lambda: runner.inbox.put_nowait(CompanionAckDue(slot.outlet)))
    await runner.commands.apply(out, now)  # its `_send` drops the companion if this step unlinked it
    await runner.commands.observe(before, effects, item.frame, out, now)
    return bool(out.frames or out.cmds)


async def mirror(runner: SessionRunner, host_frames: list[ServerFrame]) -> None:
    """After a step: the companion's frames for the tree (and theme) the host page was sent."""
    slot = runner.companion
    if slot is None:
        return
    if not slot.companion.linked:
        unlinked: list[ServerFrame] = [error_frame("not_linked", NOT_LINKED)]
        if runner.session.recorder:
            runner.session.recorder.companion_out(unlinked)
        _forget(runner, slot)
        log.info("session %s: its phone was unlinked: the companion is closed", runner.id)
        await _send(runner, slot, unlinked)
        await close_quietly(slot.outlet, CLOSE_UNLINKED, "not_linked")
        return
    await _send(runner, slot, slot.companion.mirror(host_frames))


async def close_companion(runner: SessionRunner, code: int, reason: str) -> None:
    slot = runner.companion
    if slot is not None:
        _forget(runner, slot)
        await close_quietly(slot.outlet, code, reason)


async def _send(runner: SessionRunner, slot: CompanionSlot, frames: list[ServerFrame]) -> None:
    try:
        for frame in frames:
            await slot.outlet.send_bytes(encoded(frame))
            slot.told = max(slot.told, frame.a)
    except Exception:
        log.info("session %s: the companion's socket went away while sending", runner.id)
        _forget(runner, slot)
        return
    if slot.companion.in_seq <= slot.told:
        slot.drop_ack()
