from __future__ import annotations

import asyncio

import pytest

from modalcore.runtime.clock import FakeClock, RealClock


def test_fake_clock_fires_due_callbacks_in_order() -> None:
    clock = FakeClock(start_ms=1000)
    fired: list[tuple[str, int]] = []
    clock.call_later(300, lambda: fired.append(("c", clock.now_ms())))
    clock.call_later(100, lambda: fired.append(("a", clock.now_ms())))
    clock.call_later(100, lambda: fired.append(("b", clock.now_ms())))
    assert clock.advance(99) == 0
    assert clock.advance(1) == 2
    assert fired == [("a", 1100), ("b", 1100)]
    clock.advance(1000)
    assert fired[-1] == ("c", 1300)
    assert clock.now_ms() == 2100


def test_fake_clock_cancel_and_nested() -> None:
    clock = FakeClock(start_ms=0)
    fired: list[int] = []
    handle = clock.call_later(50, lambda: fired.append(50))
    handle.cancel()

    def outer() -> None:
        clock.call_later(10, lambda: fired.append(clock.now_ms()))

    clock.call_later(10, outer)
    clock.advance(25)
    assert fired == [20]
    assert clock.pending() == 0
    with pytest.raises(ValueError):
        clock.advance(-1)


async def test_real_clock_calls_later() -> None:
    clock = RealClock()
    done = asyncio.Event()
    before = clock.now_ms()
    clock.call_later(1, done.set)
    await asyncio.wait_for(done.wait(), 1)
    assert clock.now_ms() >= before
