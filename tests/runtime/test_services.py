from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest

from modalcore.core.cmds import Call
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.services import ServiceContext, ServiceError, default_services
from modalcore.services.jsonrpc import RpcCallError, batch

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


async def test_an_unreachable_upstream_fails_the_call_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 11 fuzz: a connected account on a network whose RPC cannot be reached logged a full
    traceback for every balance refresh (any visitor can cause it). Upstream failures are one
    line; a real bug in a service still logs its traceback."""
    registry = default_services()

    async def dead_rpc(ctx: ServiceContext) -> Any:
        async with httpx.AsyncClient() as http:  # nothing listens on port 9 of loopback
            return await batch(http, "http://127.0.0.1:9/", [("eth_chainId", [])])

    async def refusing_rpc(ctx: ServiceContext) -> Any:
        raise RpcCallError(-32000, "header not found")

    async def bug(ctx: ServiceContext) -> Any:
        raise KeyError("x")

    registry.register("dead", dead_rpc)
    registry.register("refusing", refusing_rpc)
    registry.register("bug", bug)
    with caplog.at_level(logging.WARNING, logger="modalcore.runtime.services"):
        dead = await registry.call(Call("dead", {}, "p"), CTX)
        refusing = await registry.call(Call("refusing", {}, "p"), CTX)
    assert (dead.ok, refusing.ok) == (False, False)
    assert refusing.error == "-32000: header not found"
    assert [r.exc_info for r in caplog.records] == [None, None]
    assert "ConnectError" in caplog.records[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="modalcore.runtime.services"):
        assert not (await registry.call(Call("bug", {}, "p"), CTX)).ok
    assert caplog.records[0].exc_info is not None
