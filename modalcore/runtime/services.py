"""The registry that runs the services `Call(service, args, reply, key)` commands name.

A call names its service by a typed handle (`core/cmds.ServiceRef`: the arguments' pydantic
model and the result type); an implementation is registered under that handle and must take the
same arguments' model. A call carries an instance of that model (`Call[A]`, built by
`ServiceRef.call`; arguments made from input were validated where the call was made), so the
registry runs it as given; arguments of another model (a test's stand-in) fail the call as
"invalid", one warning line. The result (or the failure)
comes back to the session as the envelope `CallSettled(to, ok, result, error, context)`, which
the session's edge (`engine/replies.py`) validates into the `Reply` it is addressed to. Other
modules register real implementations (chain RPC, wallet directory, ...) on the registry the app
is built with; the registry itself only ships `clock`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, TypeVar

import httpx

from pydantic import BaseModel

from ..core.cmds import INVALID_ARGUMENTS, Call, CallSettled, FailureKind, ServiceRef
from ..core.services import CLOCK, AnyRef, AnyService, NoArgs, Service, ServiceContext, ServiceError, serve
from ..durable.db import DatabaseError
from ..services.backend.blockchain_api import BlockchainApiError
from ..services.backend.jsonrpc import RpcCallError

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0


A = TypeVar("A", bound=BaseModel)
R = TypeVar("R")


class ServiceRegistry:
    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self._services: dict[AnyRef, tuple[AnyService, float]] = {}
        self.timeout_s = timeout_s

    def register(
        self, ref: ServiceRef[A, R], service: Service[A, R], *, timeout_s: float | None = None,
        replace: bool = False,
    ) -> None:
        """Run `service` for calls naming `ref`; refused (TypeError) when it takes other
        arguments than the handle says, so a call's arguments are validated by the model the
        slice built them for."""
        if service.args is not ref.args:
            raise TypeError(f"service {ref.name!r} takes {ref.args.__name__}, not {service.args.__name__}")
        if ref in self._services and not replace:
            raise ValueError(f"service {ref.name!r} is already registered")
        self._services[ref] = (service, timeout_s if timeout_s is not None else self.timeout_s)

    def names(self) -> list[str]:
        return sorted(ref.name for ref in self._services)

    def __contains__(self, ref: object) -> bool:
        return ref in self._services

    async def call(self, cmd: Call[Any], ctx: ServiceContext) -> CallSettled:
        entry = self._services.get(cmd.service)
        if entry is None:
            return _failed(cmd, "unknown service", "invalid")
        service, timeout_s = entry
        args = cmd.args
        if not isinstance(args, service.args):  # mypy holds a slice to the handle; a test's stub may not
            log.warning("service %s: arguments are a %s, not %s", cmd.service.name, type(args).__name__,
                        service.args.__name__)
            return _failed(cmd, INVALID_ARGUMENTS, "invalid")
        try:
            result = await asyncio.wait_for(service.run(ctx, args), timeout_s)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            return _failed(cmd, "timeout", "timeout")
        except Exception as error:  # a service bug must not take the session down
            kind = failure_kind(error)
            if kind == "upstream":
                # an upstream (chain RPC, directory) that cannot be reached or refuses: not a bug,
                # so one line and no traceback (any visitor can make a session call a dead RPC)
                log.warning("service %s: upstream failed: %s: %s", cmd.service.name, type(error).__name__, error)
            elif kind == "unknown":
                log.warning("service %s failed", cmd.service.name, exc_info=True)
            default = "service error" if isinstance(error, ServiceError) else type(error).__name__
            return _failed(cmd, str(error) or default, kind)
        return CallSettled(cmd.to, ok=True, result=result, context=dict(cmd.context))


def failure_kind(error: BaseException) -> FailureKind:
    """What a service's exception was: its own kind, an upstream that failed (a chain RPC or
    an API unreachable or refusing), a time-out, else unknown (a service bug)."""
    if isinstance(error, ServiceError):
        return error.kind
    if isinstance(error, (httpx.HTTPError, RpcCallError, BlockchainApiError, DatabaseError)):
        return "upstream"  # DatabaseError: the shared PostgreSQL unreachable (issue 42), not a bug
    if isinstance(error, TimeoutError):
        return "timeout"
    return "unknown"


def _failed(cmd: Call[Any], error: str, kind: FailureKind) -> CallSettled:
    return CallSettled(cmd.to, ok=False, error=error, context=dict(cmd.context), failure=kind)


async def _now_ms(ctx: ServiceContext | None, args: NoArgs) -> int:
    if ctx is None:
        raise ServiceError("clock: no context")
    return ctx.clock.now_ms()


clock_service = serve(CLOCK, _now_ms)


def default_services(extra: Iterable[tuple[AnyRef, AnyService]] = ()) -> ServiceRegistry:
    registry = ServiceRegistry()
    registry.register(CLOCK, clock_service)
    for ref, service in extra:
        registry.register(ref, service)
    return registry
