"""Named async services that `Call(service, args, purpose)` commands run.

A service is typed: `Service(Args, run)` where `Args` is a pydantic model of its arguments and
`run(ctx, args) -> result` returns plain data (a TypedDict or a JSON value). The registry
validates a call's arguments into `Args` at the runtime's edge (arguments that do not validate
fail the call, one warning line). The result (or the failure) comes back to the session as the
envelope `CallSettled(purpose, ok, result, error, context)`, which the session's edge
(`engine/replies.py`) validates into the `Reply` the call named. Other modules register real
implementations (chain RPC, wallet directory, ...) on the registry the app is built with; the
registry itself only ships `clock`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

import httpx
from pydantic import ValidationError

from ..core.cmds import Call, CallSettled, FailureKind
from ..core.services import AnyService, NoArgs, Service, ServiceContext, ServiceError
from ..services.blockchain_api import BlockchainApiError
from ..services.jsonrpc import RpcCallError

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0


class ServiceRegistry:
    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self._services: dict[str, tuple[AnyService, float]] = {}
        self.timeout_s = timeout_s

    def register(
        self, name: str, service: AnyService, *, timeout_s: float | None = None, replace: bool = False
    ) -> None:
        if name in self._services and not replace:
            raise ValueError(f"service {name!r} is already registered")
        self._services[name] = (service, timeout_s if timeout_s is not None else self.timeout_s)

    def names(self) -> list[str]:
        return sorted(self._services)

    def __contains__(self, name: object) -> bool:
        return name in self._services

    async def call(self, cmd: Call, ctx: ServiceContext) -> CallSettled:
        entry = self._services.get(cmd.service)
        if entry is None:
            return _failed(cmd, "unknown service", "invalid")
        service, timeout_s = entry
        try:
            args = service.parse(cmd.args)
        except ValidationError as error:
            first = error.errors()[0]
            log.warning("service %s: arguments did not validate (%d errors; first at %s: %s)", cmd.service,
                        error.error_count(), ".".join(str(p) for p in first["loc"]), first["msg"])
            return _failed(cmd, "invalid arguments", "invalid")
        try:
            result = await asyncio.wait_for(service.run(ctx, args), timeout_s)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            return _failed(cmd, "timeout", "timeout")
        except ServiceError as error:
            return _failed(cmd, str(error) or "service error", error.kind)
        except (httpx.HTTPError, RpcCallError, BlockchainApiError) as error:
            # an upstream (chain RPC, directory) that cannot be reached or refuses: not a bug, so
            # one line and no traceback (any visitor can make a session call a dead RPC)
            log.warning("service %s: upstream failed: %s: %s", cmd.service, type(error).__name__, error)
            return _failed(cmd, str(error) or type(error).__name__, "upstream")
        except Exception as error:  # a service bug must not take the session down
            log.warning("service %s failed", cmd.service, exc_info=True)
            return _failed(cmd, str(error) or type(error).__name__, "unknown")
        return CallSettled(purpose=cmd.purpose, ok=True, result=result, context=dict(cmd.context))


def _failed(cmd: Call, error: str, kind: FailureKind) -> CallSettled:
    return CallSettled(purpose=cmd.purpose, ok=False, error=error, context=dict(cmd.context), failure=kind)


async def _now_ms(ctx: ServiceContext | None, args: NoArgs) -> int:
    if ctx is None:
        raise ServiceError("clock: no context")
    return ctx.clock.now_ms()


# The current time in ms (what a session asks for when it needs a fresh timestamp).
clock_service = Service(NoArgs, _now_ms)


def default_services(extra: Iterable[tuple[str, AnyService]] = ()) -> ServiceRegistry:
    registry = ServiceRegistry()
    registry.register("clock", clock_service)
    for name, service in extra:
        registry.register(name, service)
    return registry
