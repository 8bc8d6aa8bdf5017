from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from modalcore.core.cmds import Call, Dispatch, Failure, Reply, ReplyTo, ServiceRef
from modalcore.runtime.clock import FakeClock
from modalcore.core.services import NoArgs, Service, ServiceContext, ServiceError
from modalcore.runtime.services import default_services
from modalcore.services.backend.jsonrpc import RpcCallError, batch

@dataclass(frozen=True)
class Clocked(Reply):
    result: int | None = None


CTX = ServiceContext("s1", "test", FakeClock(start_ms=42))


class _Other(BaseModel):
    """Arguments of no registered service."""


async def test_clock_service() -> None:
    settled = await default_services().call(Call(ServiceRef("clock", NoArgs, object), NoArgs(), Clocked, "now", {"x": "1"}), CTX)
    assert (settled.ok, settled.result, settled.to, settled.context) == (True, 42, ReplyTo(Clocked, "now"), {"x": "1"})


async def test_unknown_service() -> None:
    settled = await default_services().call(Call(ServiceRef("nope", NoArgs, object), NoArgs(), Clocked, "p"), CTX)
    assert (settled.ok, settled.error, settled.to) == (False, "unknown service", ReplyTo(Clocked, "p"))


async def test_service_failures_become_errors() -> None:
    registry = default_services()

    async def boom(ctx: ServiceContext | None, args: NoArgs) -> Any:
        raise ServiceError("No ActiveCaipAddress found")

    async def bug(ctx: ServiceContext | None, args: NoArgs) -> Any:
        raise KeyError("x")

    async def slow(ctx: ServiceContext | None, args: NoArgs) -> Any:
        await asyncio.sleep(10)

    registry.register(ServiceRef("boom", NoArgs, object), Service(NoArgs, boom))
    registry.register(ServiceRef("bug", NoArgs, object), Service(NoArgs, bug))
    registry.register(ServiceRef("slow", NoArgs, object), Service(NoArgs, slow), timeout_s=0.01)
    assert (await registry.call(Call(ServiceRef("boom", NoArgs, object), NoArgs(), Clocked, "p"), CTX)).error == "No ActiveCaipAddress found"
    assert not (await registry.call(Call(ServiceRef("bug", NoArgs, object), NoArgs(), Clocked, "p"), CTX)).ok
    assert (await registry.call(Call(ServiceRef("slow", NoArgs, object), NoArgs(), Clocked, "p"), CTX)).error == "timeout"
    # arguments of another model than the service's are a failure, not a crash
    assert not (await registry.call(Call(ServiceRef("clock", _Other, object), _Other(), Clocked, "p"), CTX)).ok
    with pytest.raises(ValueError):
        registry.register(ServiceRef("clock", NoArgs, object), Service(NoArgs, slow))
    assert registry.names() == ["boom", "bug", "clock", "slow"]


async def test_an_unreachable_upstream_fails_the_call_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 11 fuzz: a connected account on a network whose RPC cannot be reached logged a full
    traceback for every balance refresh (any visitor can cause it). Upstream failures are one
    line; a real bug in a service still logs its traceback."""
    registry = default_services()

    async def dead_rpc(ctx: ServiceContext | None, args: NoArgs) -> Any:
        async with httpx.AsyncClient() as http:  # nothing listens on port 9 of loopback
            return await batch(http, "http://127.0.0.1:9/", [("eth_chainId", [])])

    async def refusing_rpc(ctx: ServiceContext | None, args: NoArgs) -> Any:
        raise RpcCallError(-32000, "header not found")

    async def bug(ctx: ServiceContext | None, args: NoArgs) -> Any:
        raise KeyError("x")

    registry.register(ServiceRef("dead", NoArgs, object), Service(NoArgs, dead_rpc))
    registry.register(ServiceRef("refusing", NoArgs, object), Service(NoArgs, refusing_rpc))
    registry.register(ServiceRef("bug", NoArgs, object), Service(NoArgs, bug))
    with caplog.at_level(logging.WARNING, logger="modalcore.runtime.services"):
        dead = await registry.call(Call(ServiceRef("dead", NoArgs, object), NoArgs(), Clocked, "p"), CTX)
        refusing = await registry.call(Call(ServiceRef("refusing", NoArgs, object), NoArgs(), Clocked, "p"), CTX)
    assert (dead.ok, refusing.ok) == (False, False)
    assert refusing.error == "-32000: header not found"
    assert [r.exc_info for r in caplog.records] == [None, None]
    assert "ConnectError" in caplog.records[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="modalcore.runtime.services"):
        assert not (await registry.call(Call(ServiceRef("bug", NoArgs, object), NoArgs(), Clocked, "p"), CTX)).ok
    assert caplog.records[0].exc_info is not None


async def test_arguments_validate_into_the_service_model_before_it_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Typed services (issue 12 item 2): a call's arguments become the service's model at the
    runtime's edge; arguments that do not fit fail the call, and the service never runs."""
    ran: list[int] = []

    class CountArgs(BaseModel):
        model_config = ConfigDict(extra="forbid")
        n: int

    async def count(ctx: ServiceContext | None, args: CountArgs) -> int:
        ran.append(args.n)
        return args.n

    registry = default_services()
    registry.register(ServiceRef("count", CountArgs, object), Service(CountArgs, count))
    ref: ServiceRef[CountArgs, object] = ServiceRef("count", CountArgs, object)
    ok = await registry.call(ref.call(CountArgs(n=3), Clocked, "p"), CTX)
    # arguments made from input are validated where the call is made: a refusal, fed at once
    refused = Dispatch(Clocked(key="p", failure=Failure("invalid", "invalid arguments")))
    assert ref.call_or_refusal({"n": "three"}, Clocked, "p") == refused
    assert ref.call_or_refusal({"n": 1, "m": 2}, Clocked, "p") == refused
    with caplog.at_level(logging.WARNING, logger="modalcore.runtime.services"):
        other = await registry.call(Call(ServiceRef("count", NoArgs, object), NoArgs(), Clocked, "p"), CTX)
    assert (ok.ok, ok.result) == (True, 3)
    assert (other.ok, other.error, other.failure) == (False, "invalid arguments", "invalid")
    assert ran == [3]
    assert [r.exc_info for r in caplog.records] == [None]
    assert await Service(CountArgs, count)(CTX, n=4) == 4  # called directly, the same validation


def test_an_implementation_must_take_the_arguments_its_handle_names() -> None:
    """Issue 30: a call names its service by a typed handle; the implementation registered under
    it validates the call's arguments with the handle's model, or it is refused at start-up."""

    class OtherArgs(BaseModel):
        n: int

    async def run(ctx: ServiceContext | None, args: OtherArgs) -> int:
        return args.n

    registry = default_services()
    with pytest.raises(TypeError):
        registry.register(ServiceRef("count", NoArgs, int), Service(OtherArgs, run))  # type: ignore[misc]
    assert "count" not in registry.names()
