"""How a session's runner runs the commands a session step hands out (timers, service calls,
runtime effects, tracking): the runner is the `CommandHost` of the one interpreter
(`engine/interpret.py`, shared with the test harness), and this is what each of its methods
does. A base of `SessionRunner` (runtime/runner.py), which keeps the inbox, lifecycle and
persistence."""

from __future__ import annotations

import asyncio
import itertools
import logging
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analytics import events
from ..core.cmds import Call, CallSettled, CancelTimer, Effect, EffectSettled, StartTimer, Track
from ..core.msg import Msg
from ..core.services import ServiceContext
from ..engine.interpret import RuntimeCmd, interpret
from ..engine.persist import PendingTimer
from ..engine.session import Output, Session
from ..wire.serverframes import EffectRequest, ServerFrame
from ..rules.wallet_requests import NOT_SAVED, NOT_SAVED_CODE, asks_to_sign
from ..services.domain.handles import EMBEDDED_RESOLVE, EMBEDDED_SIGN
from ..ports.analytics import TrackedEvent
from ..ports.clock import Clock, TimerHandle
from .inbox import Inbox
from .runner_inputs import Deliver, Item, TimerFired

if TYPE_CHECKING:
    from .runner import EffectRunner, RunnerDeps

log = logging.getLogger(__name__)


@dataclass
class Timer:
    due_ms: int
    msg: Msg
    generation: int
    handle: TimerHandle


class CommandInterpreter:
    """The commands half of a session's runner (the attributes are the runner's)."""

    session: Session
    deps: RunnerDeps
    clock: Clock
    closing: bool
    _queue: Inbox[Item]
    _timers: dict[str, Timer]
    _generations: itertools.count[int]
    _calls: set[asyncio.Task[None]] | None
    _effects: set[asyncio.Task[None]] | None

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def context(self) -> ServiceContext:
        raise NotImplementedError  # the runner's

    def pending_timers(self) -> list[PendingTimer]:
        """The timers running, to be saved with the session."""
        return [PendingTimer(key, t.due_ms, t.msg) for key, t in self._timers.items()]

    async def _send(self, frames: list[ServerFrame]) -> None:
        raise NotImplementedError  # the runner's: on its socket, if one is attached

    async def _save(self, durable: bool = False) -> bool:
        raise NotImplementedError  # the runner's: True when the state landed

    # ----- one step's output: frames sent, commands run (a wallet request after its state is saved)
    async def _apply(self, out: Output, now: int) -> None:
        guarded = [cmd for cmd in out.cmds if signs(cmd)]
        if not guarded and not any(isinstance(frame, EffectRequest) for frame in out.frames):
            await self._send(out.frames)
            self._run_cmds(out.cmds, now)
            return
        # Write-ahead for requests to the browser (a wallet request may move money): the
        # state that awaits the answer, with its time-out timer, is saved before the request
        # leaves. A worker killed after sending leaves a saved session that knows the
        # request is pending: the one that takes the visitor over applies the answer, or
        # shows the request lost, and never issues it again (issue 17). A request that asks a
        # wallet to sign or send (here or run by the engine: WalletConnect, the embedded
        # wallet's signer) is not sent at all when that save did not land (issue 27).
        self._run_cmds([cmd for cmd in out.cmds if not signs(cmd)], now)
        landed = await self._save(durable=True)
        held = [frame for frame in out.frames
                if isinstance(frame, EffectRequest) and asks_to_sign(frame.kind, frame.req)]
        if landed or (not held and not guarded):
            await self._send(out.frames)
            self._run_cmds(guarded, now)
            return
        log.warning("session %s: %d wallet requests not sent, their state is not saved", self.id,
                    len(held) + len(guarded))
        await self._send(self.session.withhold(out.frames, {frame.eid for frame in held}))
        for frame in held:
            self._refuse_effect(frame.eid)
        for cmd in guarded:
            if isinstance(cmd, Call):
                self._queue.put_nowait(Deliver(CallSettled(cmd.to, False, error=NOT_SAVED, failure="not_sent",
                                                            context=dict(cmd.context))))
            elif isinstance(cmd, Effect):
                self._refuse_effect(cmd.eid)

    def _refuse_effect(self, eid: str) -> None:
        """A wallet request not sent (its state is not saved): its answer is that failure,
        delivered as an input, so `update` shows it and recordings replay it."""
        to = self.session.effects.get(eid)
        if to is not None:
            self._queue.put_nowait(Deliver(EffectSettled(eid, to, False, error_code=NOT_SAVED_CODE,
                                                          error_message=NOT_SAVED, failure="not_sent")))

    def _run_cmds(self, cmds: list[RuntimeCmd], now: int) -> None:
        """Run the commands the session handed out, through the one interpreter (Effect,
        CancelEffect and Dispatch for the page never get here: they become frames or messages
        inside the same session step, so replay reproduces them without a runtime)."""
        interpret(cmds, self, now)

    # ----- the CommandHost (engine/interpret.py)
    def start_timer(self, cmd: StartTimer, now: int) -> None:
        self._start_timer(cmd.key, cmd.delay_ms, cmd.msg, now)

    def cancel_timer(self, cmd: CancelTimer) -> None:
        timer = self._timers.pop(cmd.key, None)
        if timer is not None:
            timer.handle.cancel()

    def call(self, cmd: Call[Any]) -> None:
        task = asyncio.create_task(self._call(cmd))
        if self._calls is None:
            self._calls = set()
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    def run_effect(self, cmd: Effect) -> None:
        """A runtime effect (a WalletConnect request): its answer is delivered as the effect's
        `EffectSettled`. Not counted as a call: an approval may wait for minutes, and neither
        `settled()` nor eviction waits for it."""
        runner = self.deps.walletconnect
        if runner is None:
            self._queue.put_nowait(Deliver(EffectSettled(cmd.eid, cmd.to, False, error_code=4900,
                                                          error_message="WalletConnect is not configured")))
            return
        task = asyncio.create_task(self._effect(runner, cmd))
        if self._effects is None:
            self._effects = set()
        self._effects.add(task)
        task.add_done_callback(self._effects.discard)

    async def _effect(self, runner: EffectRunner, cmd: Effect) -> None:
        try:
            ok, result, code, message = await runner.run(self.id, dict(cmd.req))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.warning("session %s: %s effect failed: %s: %s", self.id, cmd.kind, type(error).__name__, error)
            ok, result, code, message = False, None, -32603, str(error) or type(error).__name__
        if not self.closing:
            self._queue.put_nowait(Deliver(EffectSettled(cmd.eid, cmd.to, ok, result if ok else None,
                                                          0 if ok else code, "" if ok else message)))

    def _start_timer(self, key: str, delay_ms: int, msg: Msg, now: int) -> None:
        previous = self._timers.pop(key, None)
        if previous is not None:
            previous.handle.cancel()
        generation = next(self._generations)

        def fire() -> None:
            self._queue.put_nowait(TimerFired(key, generation))

        handle = self.clock.call_later(delay_ms, fire)
        self._timers[key] = Timer(now + max(0, delay_ms), msg, generation, handle)

    async def _call(self, cmd: Call[Any]) -> None:
        settled = await self.deps.services.call(cmd, self.context)
        if not self.closing:
            self._queue.put_nowait(Deliver(settled))

    def track(self, cmd: Track, now: int, index: int = 0) -> None:
        model = self.session.model
        if not events.enabled(model):
            return  # the host's `analytics: false`
        event = events.make_event(model, self.id, now, cmd.event, dict(cmd.props), index)
        self._to_sink(event)

    def _report_error(self, item: object, error: BaseException) -> None:
        """Unexpected errors are reported as telemetry (behaviour.md §8); the sink gates and caps it. The
        operator's error view groups them too (runtime/errorbook.py), whatever the host asked."""
        route = f"PROCESS_{type(item).__name__.strip('_').upper()}"
        if self.deps.errors is not None:
            self.deps.errors.record(type(error).__name__, route, self.id, str(error), self.clock.now_ms())
        model = self.session.model
        if not events.enabled(model):
            return
        props = {"type": "error", "event": route,
                 "errorType": type(error).__name__, "errorMessage": str(error)[:512],
                 "stackTrace": "".join(traceback.format_exception(error))[-4096:]}
        now = self.clock.now_ms()
        self._to_sink(events.make_event(model, self.id, now, "ERROR", props, 0, kind="error"))

    def _to_sink(self, event: TrackedEvent) -> None:
        try:
            self.deps.analytics.track(event)
        except Exception:
            log.exception("analytics sink failed")


def signs(cmd: RuntimeCmd) -> bool:
    """A command the engine runs that asks a wallet to sign or send (held until its state is saved)."""
    if isinstance(cmd, Call):
        return cmd.service in (EMBEDDED_SIGN, EMBEDDED_RESOLVE)  # the resolve may send the same bytes again
    return isinstance(cmd, Effect) and asks_to_sign(cmd.kind, cmd.req)
