from __future__ import annotations

import asyncio
from typing import Any

import pytest

from modalcore.core.cmds import Call
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.services import ServiceContext, ServiceError, default_services

CTX = ServiceContext("s1", "test", FakeClock(start_ms=42))


async def test_clock_service() -> None:
    settled = await default_services().call(Call("clock", {}, "now", {"x": 1}), CTX)
    assert (settled.ok, settled.result, settled.purpose, settled.context) == (True, 42, "now", {"x": 1})


async def test_unknown_service() -> None:
    settled = await default_services().call(Call("nope", {}, "p"), CTX)
    assert (settled.ok, settled.error, settled.purpose) == (False, "unknown service", "p")


async def test_service_failures_become_errors() -> None:
    registry = default_services()

    async def boom(ctx: ServiceContext, **args: Any) -> Any:
        raise ServiceError("No ActiveCaipAddress found")

    async def bug(ctx: ServiceContext, **args: Any) -> Any:
        raise KeyError("x")

    async def slow(ctx: ServiceContext) -> Any:
        await asyncio.sleep(10)

    registry.register("boom", boom)
    registry.register("bug", bug)
    registry.register("slow", slow, timeout_s=0.01)
    assert (await registry.call(Call("boom", {}, "p"), CTX)).error == "No ActiveCaipAddress found"
    assert not (await registry.call(Call("bug", {}, "p"), CTX)).ok
    assert (await registry.call(Call("slow", {}, "p"), CTX)).error == "timeout"
    # wrong keyword arguments are a failure, not a crash
    assert not (await registry.call(Call("clock", {"bad": 1}, "p"), CTX)).ok
    with pytest.raises(ValueError):
        registry.register("clock", slow)
    assert registry.names() == ["boom", "bug", "clock", "slow"]
