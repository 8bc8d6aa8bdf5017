"""How a session's runner runs the commands a session step hands out (timers, service calls,
runtime effects, tracking): `Commands` is the `CommandHost` of the one interpreter
(`engine/interpret.py`, shared with the test harness), one per runner (runtime/runner.py, which
keeps the inbox, lifecycle and persistence), and keeps what is in flight: the timers, the service
calls and the runtime effects."""

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
from ..engine.output import Output
from ..engine.persist import PendingTimer
from ..ports.analytics import AnalyticsSink, TrackedEvent
from ..ports.clock import TimerHandle
from ..ports.observe import PendingEffects, Step
from ..rules.wallet_requests import NOT_SAVED, NOT_SAVED_CODE, asks_to_sign
from ..services.domain.handles import EMBEDDED_RESOLVE, EMBEDDED_SIGN
from ..slices.model import Model
from ..wire.frames import ClientFrame
from ..wire.serverframes import EffectRequest
from .runner_inputs import Deliver, TimerFired

if TYPE_CHECKING:
    from .deps import EffectRunner
    from .runner import SessionRunner

log = logging.getLogger(__name__)


@dataclass
class Timer:
    due_ms: int
    msg: Msg
    generation: int
    handle: TimerHandle


class Commands:
    """The commands half of one session's runner: what `update` asked for, run, and what is in
    flight (the call and effect sets are made on first use: two empty sets were ~430 bytes of
    each idle session, issue 17)."""

    __slots__ = ("runner", "timers", "generations", "calls", "effects", "_context")

    def __init__(self, runner: SessionRunner) -> None:
        self.runner = runner
        self.timers: dict[str, Timer] = {}
        self.generations = itertools.count(1)
        self.calls: set[asyncio.Task[None]] | None = None
        self.effects: set[asyncio.Task[None]] | None = None
        self._context: ServiceContext | None = None

    @property
    def context(self) -> ServiceContext:
        """What the session's service calls run with (made on its first call)."""
        if self._context is None:
            runner, deps = self.runner, self.runner.deps
            self._context = (deps.make_context(runner.session) if deps.make_context
                             else ServiceContext(runner.session.id, runner.session.model.project_id, deps.clock))
        return self._context

    def pending_timers(self) -> list[PendingTimer]:
        """The timers running, to be saved with the session."""
        return [PendingTimer(key, t.due_ms, t.msg) for key, t in self.timers.items()]

    def cancel_all(self) -> None:
        """The session ended: no timer fires, no call or effect goes on."""
        for timer in self.timers.values():
            timer.handle.cancel()
        for task in [*(self.calls or ()), *(self.effects or ())]:
            task.cancel()

    # ----- one step's output: frames sent, commands run (a wallet request after its state is saved)
    async def apply(self, out: Output, now: int) -> None:
        guarded = [cmd for cmd in out.cmds if signs(cmd)]
        if not guarded and not any(isinstance(frame, EffectRequest) for frame in out.frames):
            await self.runner._send(out.frames)
            interpret(out.cmds, self, now)
            return
        # Write-ahead for requests to the browser (a wallet request may move money): the
        # state that awaits the answer, with its time-out timer, is saved before the request
        # leaves. A worker killed after sending leaves a saved session that knows the
        # request is pending: the one that takes the visitor over applies the answer, or
        # shows the request lost, and never issues it again (issue 17). A request that asks a
        # wallet to sign or send (here or run by the engine: WalletConnect, the embedded
        # wallet's signer) is not sent at all when that save did not land (issue 27).
        interpret([cmd for cmd in out.cmds if not signs(cmd)], self, now)
        landed = await self.runner._save(durable=True)
        held = [frame for frame in out.frames
                if isinstance(frame, EffectRequest) and asks_to_sign(frame.kind, frame.req)]
        if landed or (not held and not guarded):
            await self.runner._send(out.frames)
            interpret(guarded, self, now)
            return
        log.warning("session %s: %d wallet requests not sent, their state is not saved", self.runner.id,
                    len(held) + len(guarded))
        await self.runner._send(self.runner.session.withhold(out.frames, {frame.eid for frame in held}))
        for frame in held:
            self.refuse_effect(frame.eid)
        for cmd in guarded:
            if isinstance(cmd, Call):
                self.runner.inbox.put_nowait(Deliver(CallSettled(cmd.to, False, error=NOT_SAVED, failure="not_sent",
                                                                  context=dict(cmd.context))))
            elif isinstance(cmd, Effect):
                self.refuse_effect(cmd.eid)

    async def observe(self, before: Model, effects: PendingEffects,
                      cause: ClientFrame | Msg | None, out: Output, now: int) -> None:
        if not self.runner.deps.observers:
            return
        step = Step(self.runner.id, now, before, self.runner.session.model, cause, out.frames, out.cmds, effects)
        for observer in self.runner.deps.observers:
            try:
                await observer.observe(step)
            except Exception:
                log.exception("session %s: an observer failed", self.runner.id)

    def refuse_effect(self, eid: str) -> None:
        """A wallet request not sent (its state is not saved): its answer is that failure,
        delivered as an input, so `update` shows it and recordings replay it."""
        to = self.runner.session.effects.get(eid)
        if to is not None:
            self.runner.inbox.put_nowait(Deliver(EffectSettled(eid, to, False, error_code=NOT_SAVED_CODE,
                                                                error_message=NOT_SAVED, failure="not_sent")))

    # ----- the CommandHost (engine/interpret.py)
    def start_timer(self, cmd: StartTimer, now: int) -> None:
        previous = self.timers.pop(cmd.key, None)
        if previous is not None:
            previous.handle.cancel()
        generation, key, runner = next(self.generations), cmd.key, self.runner

        def fire() -> None:
            runner.inbox.put_nowait(TimerFired(key, generation))

        handle = runner.clock.call_later(cmd.delay_ms, fire)
        self.timers[key] = Timer(now + max(0, cmd.delay_ms), cmd.msg, generation, handle)

    def cancel_timer(self, cmd: CancelTimer) -> None:
        timer = self.timers.pop(cmd.key, None)
        if timer is not None:
            timer.handle.cancel()

    def call(self, cmd: Call[Any]) -> None:
        task = asyncio.create_task(self._call(cmd))
        if self.calls is None:
            self.calls = set()
        self.calls.add(task)
        task.add_done_callback(self.calls.discard)

    def run_effect(self, cmd: Effect) -> None:
        """A runtime effect (a WalletConnect request): its answer is delivered as the effect's
        `EffectSettled`. Not counted as a call: an approval may wait for minutes, and neither
        `settled()` nor eviction waits for it."""
        effect_runner = self.runner.deps.walletconnect
        if effect_runner is None:
            self.runner.inbox.put_nowait(Deliver(EffectSettled(cmd.eid, cmd.to, False, error_code=4900,
                                                                error_message="WalletConnect is not configured")))
            return
        task = asyncio.create_task(self._effect(effect_runner, cmd))
        if self.effects is None:
            self.effects = set()
        self.effects.add(task)
        task.add_done_callback(self.effects.discard)

    async def _effect(self, effect_runner: EffectRunner, cmd: Effect) -> None:
        try:
            ok, result, code, message = await effect_runner.run(self.runner.id, dict(cmd.req))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.warning("session %s: %s effect failed: %s: %s", self.runner.id, cmd.kind, type(error).__name__, error)
            ok, result, code, message = False, None, -32603, str(error) or type(error).__name__
        if not self.runner.closing:
            self.runner.inbox.put_nowait(Deliver(EffectSettled(cmd.eid, cmd.to, ok, result if ok else None,
                                                                0 if ok else code, "" if ok else message)))

    async def _call(self, cmd: Call[Any]) -> None:
        settled = await self.runner.deps.services.call(cmd, self.context)
        if not self.runner.closing:
            self.runner.inbox.put_nowait(Deliver(settled))

    def track(self, cmd: Track, now: int, index: int = 0) -> None:
        model = self.runner.session.model
        if not events.enabled(model):
            return  # the host's `analytics: false`
        event = events.make_event(model, self.runner.id, now, cmd.event, dict(cmd.props), index)
        _to_sink(self.runner.deps.analytics, event)

    def report_error(self, item: object, error: BaseException) -> None:
        """Unexpected errors are reported as telemetry (behaviour.md §8); the sink gates and caps it. The
        operator's error view groups them too (runtime/errorbook.py), whatever the host asked."""
        route = f"PROCESS_{type(item).__name__.strip('_').upper()}"
        if self.runner.deps.errors is not None:
            self.runner.deps.errors.record(type(error).__name__, route, self.runner.id, str(error),
                                           self.runner.clock.now_ms())
        model = self.runner.session.model
        if not events.enabled(model):
            return
        props = {"type": "error", "event": route,
                 "errorType": type(error).__name__, "errorMessage": str(error)[:512],
                 "stackTrace": "".join(traceback.format_exception(error))[-4096:]}
        now = self.runner.clock.now_ms()
        event = events.make_event(model, self.runner.id, now, "ERROR", props, 0, kind="error")
        _to_sink(self.runner.deps.analytics, event)


def _to_sink(sink: AnalyticsSink, event: TrackedEvent) -> None:
    try:
        sink.track(event)
    except Exception:
        log.exception("analytics sink failed")


def signs(cmd: RuntimeCmd) -> bool:
    """A command the engine runs that asks a wallet to sign or send (held until its state is saved)."""
    if isinstance(cmd, Call):
        return cmd.service in (EMBEDDED_SIGN, EMBEDDED_RESOLVE)  # the resolve may send the same bytes again
    return isinstance(cmd, Effect) and asks_to_sign(cmd.kind, cmd.req)
