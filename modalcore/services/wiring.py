"""Putting the engine's services on the runtime's registry (called when the app starts, once the
shared HTTP client exists)."""

from __future__ import annotations

import httpx
from eth_account.signers.local import LocalAccount

from ..directory.source import directory_services
from ..runtime.services import AnyService, ServiceRegistry
from ..siwx.service import siwx_services
from ..siwx.store import SiwxStore
from .table import default_services


def register_engine_services(
    registry: ServiceRegistry, http: httpx.AsyncClient, siwx_store: SiwxStore, signer: LocalAccount
) -> None:
    """Register what the registry does not have yet (tests may bring their own)."""
    services: dict[str, AnyService] = default_services(http)
    services.update(siwx_services(siwx_store, http, signer))
    services.update(directory_services())
    for name, service in services.items():
        if name not in registry:
            registry.register(name, service)
