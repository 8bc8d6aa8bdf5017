"""Putting the engine's services on the runtime's registry (called when the app starts, once the
shared HTTP client exists)."""

from __future__ import annotations

from typing import Any

import httpx
from eth_account.signers.local import LocalAccount

from ..directory.source import directory_services
from ..runtime.services import ServiceContext, ServiceRegistry
from ..siwx.service import siwx_services
from ..siwx.store import SiwxStore
from .onramp.local import LocalOnramp
from .table import Service, default_services


def _with_context(service: Service) -> Service:
    async def call(ctx: ServiceContext, **args: Any) -> Any:
        return await service(**args)

    return call


def register_engine_services(
    registry: ServiceRegistry, http: httpx.AsyncClient, siwx_store: SiwxStore, signer: LocalAccount,
    local_onramp: LocalOnramp | None = None,
) -> None:
    """Register what the registry does not have yet (tests may bring their own)."""
    services: dict[str, Service] = {name: _with_context(fn)
                                    for name, fn in default_services(http, local_onramp=local_onramp).items()}
    services.update(siwx_services(siwx_store, http, signer))
    services.update(directory_services())
    for name, service in services.items():
        if name not in registry:
            registry.register(name, service)
