"""The companion's socket in the session runner (issue 44, part 3 "Left"; PROTOCOL.md
"Companion"): a companion that only receives frames gets a bare `ack` on the same timer as the
host page (ACK_DELAY_MS after its frame, when nothing was sent to it meanwhile), and a frame of
the phone's refused before the session saw it gets its `error` on the phone's socket (then the
close it asks for), never on the host's. The companion keeps no resend ring (no resume)."""

from __future__ import annotations

from modalcore.engine.session import Session
from modalcore.runtime.companion import attach_companion
from modalcore.runtime.runner_inputs import ACK_DELAY_MS
from modalcore.wire.frames import Ack, EffectResult
from modalcore_testing import FakeOutlet, runner_rig

from .test_companion_engine import _linked
from .test_handoff_engine import KEY


async def test_rule_the_companion_gets_a_bare_ack_after_a_quiet_second() -> None:
    h = _linked()
    async with runner_rig(Session(h.model.session_id, h.model, h.now)) as rig:
        phone = FakeOutlet()
        await attach_companion(rig.runner, phone, KEY)
        assert phone.types()[:3] == ["joined", "theme", "snapshot"]
        phone.take()
        rig.outlet.take()
        # an effect result for an unknown effect: processed, nothing to say
        rig.runner.put_frame(EffectResult(t="effect_result", s=1, a=0, eid="zz", ok=True), phone)
        await rig.runner.settled()
        assert phone.take() == []
        await rig.advance(ACK_DELAY_MS - 1)
        assert phone.frames == []
        await rig.advance(1)
        assert phone.take() == [{"t": "ack", "s": 0, "a": 1}]
        assert rig.outlet.frames == [], "the phone's ack went to the host page"
        # a client ack of nothing new is not acknowledged again
        rig.runner.put_frame(Ack(t="ack", s=0, a=0), phone)
        await rig.advance(2 * ACK_DELAY_MS)
        assert phone.frames == []
        assert rig.runner.companion is not None and rig.runner.companion.companion.ring == []


async def test_rule_a_refused_frame_of_the_phone_is_answered_on_the_phones_socket() -> None:
    h = _linked()
    async with runner_rig(Session(h.model.session_id, h.model, h.now)) as rig:
        phone = FakeOutlet()
        await attach_companion(rig.runner, phone, KEY)
        phone.take()
        rig.outlet.take()
        rig.runner.send_error(phone, "malformed", "text frames are refused: send binary msgpack")
        await rig.runner.settled()
        assert [(f["t"], f["code"]) for f in phone.take()] == [("error", "malformed")]
        rig.runner.send_error(phone, "too_large", "frames are at most 65536 bytes", close=1009)
        await rig.runner.settled()
        assert [(f["t"], f["code"]) for f in phone.take()] == [("error", "too_large")]
        assert phone.closed == 1009 and rig.runner.companion is None
        assert rig.outlet.frames == [] and rig.outlet.closed is None, "the host page's socket was touched"
