"""Issue 17, idle memory: a session's runner has a task only while it has input to process.
The rule: inputs are still processed one at a time and in arrival order, an idle session holds
no task, and stopping an idle session still saves it and closes its socket."""

from __future__ import annotations

import asyncio
from typing import Any

from modalcore_testing import RunnerRig, runner_rig


def _session_tasks() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t.get_name().startswith("session-")]


async def test_an_idle_session_holds_no_task(rig: RunnerRig, intent: Any) -> None:
    assert _session_tasks() == []  # welcomed and settled: nothing to process
    rig.outlet.take()
    rig.runner.put_frame(intent(1, "host", "open", iid="a"), rig.outlet)
    assert len(_session_tasks()) == 1  # the input started one
    await rig.runner.settled()
    await asyncio.sleep(0)  # the task's last step after the inbox emptied
    assert _session_tasks() == []
    assert "patch" in rig.outlet.types()


async def test_inputs_put_at_once_are_processed_in_order_by_one_task(
    rig: RunnerRig, intent: Any,
) -> None:
    rig.outlet.take()
    for s, act in enumerate(["open", "close", "open", "close"], start=1):
        rig.runner.put_frame(intent(s, "host", act, iid=f"i{s}"), rig.outlet)
        assert len(_session_tasks()) == 1
    await rig.runner.settled()
    acks = [f["iid"] for f in rig.outlet.take() if f["t"] == "intent_ack"]
    assert acks == ["i1", "i2", "i3", "i4"]


async def test_stopping_an_idle_session_saves_it_and_closes_its_socket(intent: Any) -> None:
    async with runner_rig() as rig:
        rig.runner.put_frame(intent(1, "host", "open", iid="a"), rig.outlet)
        await rig.runner.settled()
        await asyncio.sleep(0)
        assert _session_tasks() == []
        await rig.runner.stop()
        assert rig.runner.finished is not None and rig.runner.finished.done()
        assert rig.outlet.closed == 1001
        assert await rig.store.load(rig.session.id, rig.clock.now_ms()) is not None
        assert rig.closed == [rig.runner]
