"""What a service is, below the slices: its arguments' model, the function that runs it and what
it may use (`ServiceContext`), and the typed handle a slice's `Call` names it by (`ServiceRef`).

The registry that runs services (`runtime/services.ServiceRegistry`) and the implementations
(chain RPC, the wallet directory, ...) sit above; the slices and the service packages import
these interfaces from here, never from the runtime.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from .cmds import FailureKind, ServiceRef

if TYPE_CHECKING:
    import httpx

    from ..ports.clock import Clock
    from ..server.config import EngineConfig


def no_address() -> str:
    return ""


@dataclass(frozen=True)
class ServiceContext:
    """What a service may use besides its arguments: who is calling, the time, HTTP, config.
    `client_address()`: the address of the session's latest socket ("" when not known), asked
    when needed (a session may come back from another address; budgets count per address)."""

    session_id: str
    project_id: str
    clock: Clock
    http: httpx.AsyncClient | None = None
    config: EngineConfig | None = None
    client_address: Callable[[], str] = no_address


A = TypeVar("A", bound=BaseModel)
R = TypeVar("R")


class NoArgs(BaseModel):
    """The arguments of a service that takes none."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# The current time in ms (what a session asks for when it needs a fresh timestamp).
CLOCK: ServiceRef[NoArgs, int] = ServiceRef("clock", NoArgs, int)


@dataclass(frozen=True)
class Service(Generic[A, R]):
    """A service: its arguments' model and the function that runs it. Calling it directly
    (`await service(ctx, **args)`, as tests and scripts do) validates the keywords the same way."""

    args: type[A]
    run: Callable[[ServiceContext | None, A], Awaitable[R]]

    def parse(self, raw: Mapping[str, object]) -> A:
        return self.args.model_validate(dict(raw))

    async def __call__(self, ctx: ServiceContext | None = None, /, **raw: object) -> R:
        return await self.run(ctx, self.parse(raw))


def serve(ref: ServiceRef[A, R], run: Callable[[ServiceContext | None, A], Awaitable[R]]) -> Service[A, R]:
    """The implementation `run` of the service `ref` names (mypy holds `run` to the handle's
    arguments' model and result type)."""
    return Service(ref.args, run)


AnyService = Service[Any, Any]  # a registry holds services of many argument and result types
AnyRef = ServiceRef[Any, Any]
ServiceTable = dict[AnyRef, AnyService]  # what a package offers to register: handle -> implementation


class ServiceError(Exception):
    """A service failure whose message is meant for the session (the reply's `Failure`), of
    `kind` (the service said no, unless it says otherwise)."""

    def __init__(self, message: str = "", kind: FailureKind = "rejected") -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
