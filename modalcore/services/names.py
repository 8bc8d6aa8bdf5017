"""The name services behind `Call` commands: an address's name, a name's address, suggestions
and registration. Names under the engine's own registry's suffix live there (NameRegistry);
other names are read from the chain's ENS (services/ens.py) when the network has a registry.
An address's name comes from the engine's registry first, then from ENS (reverse, checked
forward). Caching is the session's (5 minutes, SPEC §9, slices/names.py): these read fresh.
Failures raise with SPEC §8's message."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from ..rules.names import DEFAULT_SUFFIX
from .ens import EnsDeployment, EnsNames
from .name_registry import NameRegistry, RegistrationError, label_of


Service = Callable[..., Awaitable[Any]]


def _ens(http: httpx.AsyncClient, chain_id: int, rpc_url: str, registry: str) -> EnsNames | None:
    if not registry or not rpc_url:
        return None
    return EnsNames(http, rpc_url, EnsDeployment(chain_id, registry))


def name_services(http: httpx.AsyncClient, own: NameRegistry | None = None,
                  clock_ms: Callable[[], int] | None = None) -> dict[str, Service]:
    """`name_of`, `address_of`, `name_suggestions`, `register_name`. `clock_ms` (a function
    returning unix ms) dates registrations; the runtime's clock by default."""

    def now_ms() -> int:
        return clock_ms() if clock_ms is not None else int(time.time() * 1000)

    async def name_of(*, chain_id: int, rpc_url: str, registry: str, address: str) -> Any:
        if own is not None:
            found = own.name_of(address)
            if found is not None:
                return {"name": found}
        ens = _ens(http, chain_id, rpc_url, registry)
        return {"name": await ens.name_of(address) if ens is not None else None}

    async def address_of(*, chain_id: int, rpc_url: str, registry: str, name: str) -> Any:
        if own is not None and own.owns(name):
            return {"name": name.lower(), "address": own.address_of(name)}
        ens = _ens(http, chain_id, rpc_url, registry)
        return {"name": name.lower(), "address": await ens.address_of(name) if ens is not None else None}

    async def name_suggestions(*, label: str) -> Any:
        registry = _required(own)
        return {"label": label, "suffix": registry.suffix, "available": registry.available(label),
                "suggestions": registry.suggestions(label)}

    async def register_name(*, label: str, address: str, message: str, signature: str) -> Any:
        registry = _required(own)
        try:
            done = registry.register(label_of(label, registry.suffix), address, message, signature,
                                     now_ms())
        except RegistrationError as error:
            return {"ok": False, "error": str(error), "name": "", "address": address}
        return {"ok": True, "error": "", "name": done.name, "address": done.address}

    return {"name_of": name_of, "address_of": address_of, "name_suggestions": name_suggestions,
            "register_name": register_name}


def _required(own: NameRegistry | None) -> NameRegistry:
    if own is None:
        raise RuntimeError("this engine has no name registry")
    return own


__all__ = ["DEFAULT_SUFFIX", "name_services"]
