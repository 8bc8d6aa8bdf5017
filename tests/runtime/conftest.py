"""Runtime tests: a session runner on a FakeClock with an in-memory outlet (no sockets).

The messages below exist only for these tests (their names are unique to this folder); the
fixtures hand out factories for them so test modules never import this file. No
`from __future__ import annotations` here: pydantic (recording) must see real annotations,
since another folder's module is also named `conftest`.
"""

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from pydantic import BaseModel

from modalcore.core.cmds import CancelEffect, Effect, Reply, ServiceRef, Track
from modalcore.core.services import NoArgs
from modalcore.slices.model import Model, Step
from modalcore.core.msg import Msg
from modalcore.engine.session import Session
from modalcore.core.shape import On, Slice, Table
from modalcore.slices.account_ui import AddressCopyAnswered
from modalcore.engine.update import FLOWS, SLICES
from modalcore.runtime.clock import FakeClock
from modalcore.slices import snack
from modalcore_testing import RunnerRig, new_session, runner_rig
from modalcore.wire.frames import Intent


class EchoArgs(BaseModel):
    a: int


ARGS: dict[str, type[BaseModel]] = {"echo": EchoArgs}  # the arguments' model of a service these tests ask for


@dataclass(frozen=True)
class RtShowedSnack(Msg):
    message: str


@dataclass(frozen=True)
class RtAskedService(Msg):
    service: str
    args: dict[str, Any]
    key: str


@dataclass(frozen=True)
class RtServiceAnswered(Reply):
    result: dict[str, object] | None = None


@dataclass(frozen=True)
class RtAskedEffect(Msg):
    eid: str
    timeout_ms: int


@dataclass(frozen=True)
class RtCancelledEffect(Msg):
    eid: str


@dataclass(frozen=True)
class RtTracked(Msg):
    event: str


def _show(model: Model, msg: RtShowedSnack, now: int) -> Step:
    return snack.show(model, msg.message)


def _ask(model: Model, msg: RtAskedService, now: int) -> Step:
    ref: ServiceRef[BaseModel, object] = ServiceRef(msg.service, ARGS.get(msg.service, NoArgs), object)
    return model, [ref.call_or_refusal(msg.args, RtServiceAnswered, msg.key, context={"n": "1"})]


def _answered(model: Model, msg: RtServiceAnswered, now: int) -> Step:
    """A failed call shows its failure's kind and message (what a test reads)."""
    if msg.failure is None:
        return model, []
    return snack.show_error(model, f"{msg.failure.kind}: {msg.failure.message}")


def _effect(model: Model, msg: RtAskedEffect, now: int) -> Step:
    return model, [Effect(msg.eid, "clipboard", {"text": "x"}, AddressCopyAnswered, "copy", msg.timeout_ms)]


def _cancel(model: Model, msg: RtCancelledEffect, now: int) -> Step:
    return model, [CancelEffect(msg.eid)]


def _track(model: Model, msg: RtTracked, now: int) -> Step:
    return model, [Track(msg.event, {"k": "v"})]


# The engine's slices plus these tests' messages: a table of their own, never the engine's.
TABLE = Table.of(*SLICES, *FLOWS, Slice("runtime-tests", (
    On(RtShowedSnack, _show),
    On(RtAskedService, _ask),
    On(RtAskedEffect, _effect),
    On(RtCancelledEffect, _cancel),
    On(RtTracked, _track),
    On(RtServiceAnswered, _answered),
)))


@pytest.fixture
async def rig() -> AsyncIterator[RunnerRig]:
    async with runner_rig(table=TABLE) as started:
        yield started


@pytest.fixture
def show_snack() -> Callable[[str], Msg]:
    return RtShowedSnack


@pytest.fixture
def ask_service() -> Callable[[str, dict[str, Any], str], Msg]:
    return RtAskedService


@pytest.fixture
def ask_effect() -> Callable[[str, int], Msg]:
    return RtAskedEffect


@pytest.fixture
def cancel_effect() -> Callable[[str], Msg]:
    return RtCancelledEffect


@pytest.fixture
def track() -> Callable[[str], Msg]:
    return RtTracked


@pytest.fixture
def make_session() -> Callable[[FakeClock], Session]:
    return lambda clock: new_session(clock, table=TABLE)


IntentFactory = Callable[..., Intent]


@pytest.fixture
def intent() -> IntentFactory:
    def make(s: int, node: str, act: str, args: dict[str, Any] | None = None,
             iid: str | None = None, a: int = 0) -> Intent:
        return Intent(t="intent", s=s, a=a, iid=iid or f"i{s}", node=node, act=act,
                      args=args or {})

    return make
