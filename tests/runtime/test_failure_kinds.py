"""A failed call carries a kind from a closed set (issue 30): timeout, rejected, upstream,
invalid, unknown. Slices route on the kind, never on the text of the error."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from modalcore.core.cmds import Call, CallSettled, Dispatch, Failure, FailureKind, Reply, ReplyTo, ServiceRef
from modalcore.core.msg import MessageTypes
from modalcore.engine.named import UnknownReply, from_data, to_data
from modalcore.engine.replies import INVALID_RESULT, typed
from modalcore.enginetest import build_model
from modalcore.runtime.clock import FakeClock
from modalcore.core.services import NoArgs, Service, ServiceContext, ServiceError
from modalcore.runtime.services import default_services
from modalcore.services.backend.jsonrpc import RpcCallError
from modalcore.services.domain.swap_types import INSUFFICIENT_LIQUIDITY
from modalcore.slices.swap_form import form_key, with_swap
from modalcore.slices.swap_quote import SwapQuoted, on_quoted

CTX = ServiceContext("s1", "test", FakeClock(start_ms=42))


@dataclass(frozen=True)
class Answered(Reply):
    result: int | None = None


async def _raise(error: BaseException) -> Any:
    raise error


async def _slow() -> Any:
    await asyncio.sleep(10)


@pytest.mark.parametrize(("make", "kind"), [
    (lambda: _raise(ServiceError("No ActiveCaipAddress found")), "rejected"),
    (lambda: _raise(ServiceError("the relay is down", "upstream")), "upstream"),
    (lambda: _raise(httpx.ConnectError("refused")), "upstream"),
    (lambda: _raise(RpcCallError(-32000, "header not found")), "upstream"),
    (lambda: _raise(KeyError("x")), "unknown"),
    (_slow, "timeout"),
])
async def test_the_registry_names_the_kind_of_each_failure(make: Any, kind: FailureKind) -> None:
    registry = default_services()

    async def run(ctx: ServiceContext | None, args: NoArgs) -> Any:
        return await make()

    registry.register(ServiceRef("s", NoArgs, object), Service(NoArgs, run), timeout_s=0.05)
    settled = await registry.call(Call(ServiceRef("s", NoArgs, object), NoArgs(), Answered, "p"), CTX)
    assert (settled.ok, settled.failure) == (False, kind)


async def test_a_call_the_registry_cannot_make_is_invalid() -> None:
    registry = default_services()
    assert (await registry.call(Call(ServiceRef("nope", NoArgs, object), NoArgs(), Answered, "p"), CTX)).failure == "invalid"
    refused = ServiceRef("clock", NoArgs, object).call_or_refusal({"bad": 1}, Answered, "p")
    assert refused == Dispatch(Answered(key="p", failure=Failure("invalid", "invalid arguments")))


def test_the_typed_reply_keeps_the_kind_and_a_recording_without_one_reads_as_unknown() -> None:
    settled = CallSettled(ReplyTo(Answered, "p"), False, error="no", failure="rejected")
    types = MessageTypes.of([Answered])
    assert to_data(settled)["data"]["purpose"] == "Answered|p"  # the name a recording stores
    assert from_data(to_data(settled), types) == settled
    assert typed(settled) == Answered(key="p", failure=Failure("rejected", "no"))
    older = to_data(settled)
    del older["data"]["failure"]
    recorded = from_data(older, types)
    assert isinstance(recorded, CallSettled) and recorded.failure is None
    assert typed(recorded) == Answered(key="p", failure=Failure("unknown", "no"))
    invalid = typed(CallSettled(ReplyTo(Answered, "p"), True, result="not a number"))
    assert isinstance(invalid, Answered) and (invalid.ok, invalid.failure) == (False, Failure("invalid", INVALID_RESULT))
    # a name this engine does not know reads as a reply no slice handles
    assert from_data(older, MessageTypes.of([])) == CallSettled(ReplyTo(UnknownReply, "p"), False, error="no")


@pytest.mark.parametrize(("error", "kind", "shown"), [
    ("Insufficient liquidity", "rejected", INSUFFICIENT_LIQUIDITY),
    ("no pool for this pair", "rejected", INSUFFICIENT_LIQUIDITY),
    ("the liquidity API is down", "upstream", "the liquidity API is down"),
])
def test_a_quote_shows_insufficient_liquidity_when_the_market_said_no(error: str, kind: FailureKind,
                                                                     shown: str) -> None:
    model = build_model()
    key = form_key(model)
    model = with_swap(model, quoting=key)
    model, _ = on_quoted(model, SwapQuoted(key=key, failure=Failure(kind, error)), 0)
    assert model.swap.quote_error == shown

