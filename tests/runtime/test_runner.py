"""The session runner: serial inputs, timers on a fake clock, calls, tracking, acks, eviction."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .conftest import EchoArgs

from modalcore.engine.named import purpose
from modalcore.core.msg import Msg
from modalcore.engine.persist import PendingTimer, load_bytes
from modalcore.engine.session import Session
from modalcore.runtime.analytics import MemorySink
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.runner import RunnerDeps, SessionRunner
from modalcore.core.services import Service, ServiceContext
from modalcore.runtime.services import default_services
from modalcore.slices.snack import SnackReshowDue
from modalcore_testing import RunnerRig
from modalcore.wire.frames import Ack, EffectResult
from modalcore.core.cmds import ServiceRef

Factory = Callable[..., Msg]
IntentFactory = Callable[..., Any]


def snack_props(rig: RunnerRig) -> dict[str, Any]:
    snackbar = rig.session.tree.find("snackbar")
    assert snackbar is not None
    return dict(snackbar.p)


async def test_welcome_goes_to_the_attached_outlet(rig: RunnerRig) -> None:
    assert rig.outlet.types()[:3] == ["joined", "theme", "snapshot"]


async def test_intent_is_processed_and_answered(rig: RunnerRig, intent: IntentFactory) -> None:
    rig.outlet.take()
    rig.runner.put_frame(intent(1, "host", "open"), rig.outlet)
    await rig.runner.settled()
    frames = rig.outlet.take()
    assert [f["t"] for f in frames][:2] == ["intent_ack", "patch"]
    assert frames[1]["ops"] == [[3, "modal", {"open": True}]]


async def test_snack_reshows_after_150_ms_on_the_fake_clock(
    rig: RunnerRig, show_snack: Factory
) -> None:
    await rig.deliver(show_snack("first"))
    assert snack_props(rig)["open"] is True
    rig.outlet.take()
    await rig.deliver(show_snack("second"))
    assert snack_props(rig)["open"] is False
    await rig.advance(149)
    assert snack_props(rig)["open"] is False
    await rig.advance(1)
    assert snack_props(rig)["open"] is True and snack_props(rig)["message"] == "second"
    patches = [f for f in rig.outlet.take() if f["t"] == "patch"]
    assert len(patches) == 2  # closed, then re-shown
    await rig.advance(2500)  # auto-close
    assert snack_props(rig)["open"] is False


async def test_replacing_and_cancelling_timers(rig: RunnerRig, show_snack: Factory) -> None:
    await rig.deliver(show_snack("a"))
    await rig.deliver(show_snack("b"))  # closes; the re-show of "b" is due in 150 ms
    await rig.advance(100)
    await rig.deliver(show_snack("c"))  # closed now: "c" shows at once, the re-show is cancelled
    assert snack_props(rig)["message"] == "c"
    await rig.advance(100)
    assert snack_props(rig)["message"] == "c"
    assert {timer.key for timer in rig.runner.commands.pending_timers()} == {"snack-auto-close"}


async def test_calls_settle_back_into_the_session(rig: RunnerRig, ask_service: Factory) -> None:
    async def echo(ctx: ServiceContext | None, args: EchoArgs) -> dict[str, object]:
        return {"args": args.model_dump(), "session": ctx.session_id if ctx else ""}

    rig.services.register(ServiceRef("echo", EchoArgs, object), Service(EchoArgs, echo))
    rig.runner.deliver(ask_service("echo", {"a": 1}, "test-echo"))
    rig.runner.deliver(ask_service("missing", {}, "test-missing"))
    await rig.runner.settled()
    settled = [e["msg"]["data"] for e in rig.recorded()
               if e["k"] == "msg" and e["msg"]["type"] == "CallSettled"]
    by_purpose = {data["purpose"].partition("|")[2]: data for data in settled}
    assert {data["purpose"].partition("|")[0] for data in settled} == {"RtServiceAnswered"}
    assert by_purpose["test-echo"]["ok"] is True
    assert by_purpose["test-echo"]["result"] == {"args": {"a": 1}, "session": "s1"}
    assert by_purpose["test-echo"]["context"] == {"n": "1"}
    assert by_purpose["test-missing"]["ok"] is False
    assert by_purpose["test-missing"]["error"] == "unknown service"


async def test_arguments_from_input_that_break_the_model_fail_the_call_as_invalid_in_update(
    rig: RunnerRig, ask_service: Factory, caplog: Any,
) -> None:
    """Issue 30: a call carries its handle's arguments' model; arguments made from input are
    validated where the call is made, so bad ones end as the reply failed "invalid" (what the
    runtime answered before), the service never runs and nothing raises or logs a traceback."""
    ran: list[int] = []

    async def echo(ctx: ServiceContext | None, args: EchoArgs) -> int:
        ran.append(args.a)
        return args.a

    rig.services.register(ServiceRef("echo", EchoArgs, object), Service(EchoArgs, echo))
    with caplog.at_level(logging.WARNING):
        await rig.deliver(ask_service("echo", {"a": "not a number"}, "test-bad"))
        await rig.runner.settled()
    assert snack_props(rig)["message"] == "invalid: invalid arguments" and snack_props(rig)["open"] is True
    assert ran == [] and all(r.exc_info is None for r in caplog.records)


async def test_track_goes_to_the_sink(rig: RunnerRig, track: Factory) -> None:
    await rig.deliver(track("SEND_INITIATED"))
    assert rig.analytics.names() == ["SEND_INITIATED"]
    event = rig.analytics.events[0]
    assert (event.session_id, event.project_id, event.props) == ("s1", "test", {"k": "v"})


async def test_effect_times_out_on_the_fake_clock(rig: RunnerRig, ask_effect: Factory) -> None:
    rig.outlet.take()
    await rig.deliver(ask_effect("e1", 5000))
    effect = rig.outlet.take()[0]
    assert (effect["t"], effect["eid"], effect["timeout"]) == ("effect", "e1", 5000)
    assert {eid: purpose(to) for eid, to in rig.session.effects.items()} == {"e1": "AddressCopyAnswered|copy"}
    await rig.advance(5000)
    assert rig.session.effects == {}
    timeouts = [e for e in rig.recorded() if e["k"] == "msg" and e["msg"]["type"] == "EffectSettled"]
    assert timeouts[0]["msg"]["data"]["error_message"] == "timeout"


async def test_effect_result_and_cancel_clear_the_timeout(
    rig: RunnerRig, ask_effect: Factory, cancel_effect: Factory
) -> None:
    await rig.deliver(ask_effect("e2", 5000))
    rig.runner.put_frame(EffectResult(t="effect_result", s=1, a=0, eid="e2", ok=True, result=1),
                         rig.outlet)
    await rig.runner.settled()
    assert "effect:e2" not in {t.key for t in rig.runner.commands.pending_timers()}
    rig.runner.deliver(ask_effect("e3", 5000))
    rig.runner.deliver(cancel_effect("e3"))
    await rig.runner.settled()
    assert rig.outlet.frames[-1]["t"] == "effect_cancel"
    assert "effect:e3" not in {t.key for t in rig.runner.commands.pending_timers()}


async def test_bare_ack_after_a_quiet_second(rig: RunnerRig) -> None:
    rig.outlet.take()
    # an effect result for an unknown effect: processed, nothing to say
    rig.runner.put_frame(EffectResult(t="effect_result", s=1, a=0, eid="zz", ok=True), rig.outlet)
    await rig.runner.settled()
    assert rig.outlet.take() == []
    await rig.advance(999)
    assert rig.outlet.frames == []
    await rig.advance(1)
    assert rig.outlet.take() == [{"t": "ack", "s": 0, "a": 1}]
    # a client ack of nothing new is not acknowledged again
    rig.runner.put_frame(Ack(t="ack", s=0, a=0), rig.outlet)
    await rig.advance(2000)
    assert rig.outlet.frames == []


async def test_frames_from_a_replaced_socket_are_ignored(
    rig: RunnerRig, intent: IntentFactory
) -> None:
    newer = type(rig.outlet)()
    await rig.runner.attach(newer, lambda generation: f"token{generation}", resumed=True,
                            last=rig.session.out_seq)
    assert rig.outlet.closed == 4004
    rig.runner.put_frame(intent(1, "host", "open"), rig.outlet)
    await rig.runner.settled()
    assert rig.session.model.modal.open is False
    rig.runner.put_frame(intent(1, "host", "open"), newer)
    await rig.runner.settled()
    assert rig.session.model.modal.open is True
    assert newer.types()[0] == "joined"


async def test_saved_after_each_batch_and_evicted_when_idle(
    rig: RunnerRig, intent: IntentFactory, show_snack: Factory
) -> None:
    rig.runner.put_frame(intent(1, "host", "open"), rig.outlet)
    rig.runner.deliver(show_snack("kept"))
    await rig.runner.settled()
    data = await rig.store.load("s1", rig.clock.now_ms())
    assert data is not None
    session, timers = load_bytes(data)
    assert session.model == rig.session.model
    assert session.out_seq == rig.session.out_seq
    assert {t.key for t in timers} == {"snack-auto-close"}
    rig.runner.detach(rig.outlet)
    await rig.runner.settled()
    await rig.advance(59_999)
    assert rig.closed == []
    rig.clock.advance(1)
    assert rig.runner.finished is not None
    await rig.runner.finished
    assert rig.closed == [rig.runner]


async def test_restored_timers_fire_on_time(make_session: Callable[..., Session]) -> None:
    clock = FakeClock()
    deps = RunnerDeps(clock=clock, services=default_services(), analytics=MemorySink())
    due = PendingTimer("snack-reshow", clock.now_ms() + 100, SnackReshowDue("back", "success", True))
    runner = SessionRunner(make_session(clock), deps, timers=[due])
    runner.start()
    try:
        clock.advance(99)
        await runner.settled()
        assert runner.session.model.snack.message == ""
        clock.advance(1)
        await runner.settled()
        assert runner.session.model.snack.message == "back"
    finally:
        await runner.stop()


async def test_a_failing_socket_detaches_but_the_session_goes_on(
    rig: RunnerRig, intent: IntentFactory
) -> None:
    rig.outlet.fail = True
    rig.runner.put_frame(intent(1, "host", "open"), rig.outlet)
    await rig.runner.settled()
    assert rig.runner.outlet is None
    assert rig.session.model.modal.open is True
    assert rig.session.ring[-1][0] == rig.session.out_seq
