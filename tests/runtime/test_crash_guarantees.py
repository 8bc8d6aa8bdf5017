"""Issue 17, kill -9 guarantees at the runner and session level (the real two-process test is
tests/server/test_takeover_kill9.py):

- write-ahead for browser requests: an `effect` frame leaves only after the state awaiting its
  answer (the pending effect and its time-out timer) is saved;
- a rejoin whose `last` is past what the restored copy numbered (its previous owner died after
  sending frames it never saved) gets a snapshot numbered after `last`, so the client neither
  ignores it nor sees a number twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from modalcore.engine.named import purpose
from modalcore.core.msg import Msg
from modalcore.engine.persist import load_bytes, session_to_bytes
from modalcore.runtime.clock import FakeClock
from modalcore.engine.session import Session
from modalcore.store.base import NO_BLOBS
from modalcore.store.memory import MemoryStore
from modalcore_testing import RunnerRig
from modalcore.wire.serverframes import Joined


class _GatedStore(MemoryStore):
    """Saves wait for `gate`; what was saved is readable meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.saving = asyncio.Event()

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        self.saving.set()
        await self.gate.wait()
        await super().save(session_id, data, now_ms, blobs)


async def test_rule_an_effect_leaves_only_after_its_state_is_saved(
    rig: RunnerRig, ask_effect: Callable[[str, int], Msg],
) -> None:
    store = _GatedStore()
    rig.runner.deps.store = store
    rig.session.acted = True  # a used session (only those are saved)
    rig.outlet.take()
    rig.runner.deliver(ask_effect("e1", 5000))
    await asyncio.wait_for(store.saving.wait(), 5)
    await asyncio.sleep(0.01)
    assert [f["t"] for f in rig.outlet.frames] == []  # held until the save is done
    store.gate.set()
    await rig.runner.settled()
    assert [f["t"] for f in rig.outlet.take()][:1] == ["effect"]
    saved = await store.load(rig.session.id, rig.clock.now_ms())
    assert saved is not None
    session, timers = load_bytes(saved)
    assert {eid: purpose(to) for eid, to in session.effects.items()} == {"e1": "AddressCopyAnswered|copy"}
    assert [t.key for t in timers] == ["effect:e1"]  # the time-out is saved with it


def test_rule_a_rejoin_past_the_saved_numbering_gets_a_snapshot_after_last(
    make_session: Callable[[FakeClock], Session],
) -> None:
    clock = FakeClock()
    session = make_session(clock)
    session.welcome("t", resumed=False, last=None)
    restored, _ = load_bytes(session_to_bytes(session))
    saved_seq = restored.out_seq
    seen_by_client = saved_seq + 3  # frames the dead owner sent after its last save
    out = restored.welcome("t2", resumed=True, last=seen_by_client, now=clock.now_ms())
    numbered = [f for f in out.frames if f.s > 0]
    joined = out.frames[0]
    assert isinstance(joined, Joined) and joined.resumed is True
    assert "snapshot" in [f.t for f in numbered]
    assert min(f.s for f in numbered) == seen_by_client + 1
    # an ordinary rejoin (nothing missed) still gets nothing more than `joined`
    again = restored.welcome("t3", resumed=True, last=restored.out_seq, now=clock.now_ms())
    assert [f.t for f in again.frames] == ["joined"]
