"""The name services behind `Call` commands: an address's name, a name's address, suggestions
and registration. Names under the account-name suffix live in the engine's own registry
(NameRegistry), or, when the operator configures the hosted Blockchain API, there (behaviour.md §7
profile endpoints, `ProfileApi`: the production path); other names are read from the chain's
ENS (services/backend/ens.py) when the network has a registry. An address's name comes from the
account-name registry first, then from ENS (reverse, checked forward). Caching is the
session's (5 minutes, behaviour.md §9, slices/names.py): these read fresh. Failures raise (or, for a
registration, answer) with behaviour.md §8's message."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx
from pydantic import BaseModel

from ...rules import limits as L
from ...rules.names import DEFAULT_SUFFIX, error_registering, full_name, name_problem
from .ens import EnsDeployment, EnsNames
from .name_registry import NameRegistry, RegistrationError, label_of
from ...core.services import serve, ServiceContext, ServiceTable
from ..domain.handles import (ADDRESS_OF, NAME_OF, NAME_SUGGESTIONS, REGISTER_NAME, AddressFound, AddressOfArgs, NameFound,
                      NameOfArgs, NameRegistered, NameSuggestions, RegisterArgs, SuggestionsArgs)
from .profile_api import HostedNames, ProfileApi, ProfileApiError, evm_coin_type


log = logging.getLogger(__name__)
A = TypeVar("A", bound=BaseModel)
R = TypeVar("R")


_Run = Callable[[ServiceContext | None, A], Awaitable[R]]


def _table(name_of: _Run[NameOfArgs, NameFound], address_of: _Run[AddressOfArgs, AddressFound],
           name_suggestions: _Run[SuggestionsArgs, NameSuggestions],
           register_name: _Run[RegisterArgs, NameRegistered]) -> ServiceTable:
    return {NAME_OF: serve(NAME_OF, name_of), ADDRESS_OF: serve(ADDRESS_OF, address_of),
            NAME_SUGGESTIONS: serve(NAME_SUGGESTIONS, name_suggestions),
            REGISTER_NAME: serve(REGISTER_NAME, register_name)}


def _ens(http: httpx.AsyncClient, chain_id: int, rpc_url: str, registry: str) -> EnsNames | None:
    if not registry or not rpc_url:
        return None
    return EnsNames(http, rpc_url, EnsDeployment(chain_id, registry))


async def _ens_name_of(http: httpx.AsyncClient, a: NameOfArgs) -> NameFound:
    """The address's ENS name (None on a network without ENS): where account names fall back to."""
    ens = _ens(http, a.chain_id, a.rpc_url, a.registry)
    return {"name": await ens.name_of(a.address) if ens is not None else None}


async def _ens_address_of(http: httpx.AsyncClient, a: AddressOfArgs) -> AddressFound:
    """The ENS name's address (None on a network without ENS): a name not under the suffix."""
    ens = _ens(http, a.chain_id, a.rpc_url, a.registry)
    return {"name": a.name.lower(), "address": await ens.address_of(a.name) if ens is not None else None}


def _suffix(suffix: str) -> str:
    return suffix if suffix.startswith(".") else "." + suffix


def name_services(http: httpx.AsyncClient, own: NameRegistry | None = None,
                  clock_ms: Callable[[], int] | None = None, hosted: ProfileApi | None = None,
                  hosted_suffix: str = DEFAULT_SUFFIX) -> ServiceTable:
    """`name_of`, `address_of`, `name_suggestions`, `register_name`. `clock_ms` (a function
    returning unix ms) dates registrations; the runtime's clock by default. With `hosted`, the
    account names (suffix `hosted_suffix`) are the hosted API's, not `own`'s."""
    if hosted is not None:
        return _hosted_services(http, hosted, _suffix(hosted_suffix))

    def now_ms() -> int:
        return clock_ms() if clock_ms is not None else int(time.time() * 1000)

    async def name_of(ctx: ServiceContext | None, a: NameOfArgs) -> NameFound:
        found = own.name_of(a.address) if own is not None else None
        return {"name": found} if found is not None else await _ens_name_of(http, a)

    async def address_of(ctx: ServiceContext | None, a: AddressOfArgs) -> AddressFound:
        if own is not None and own.owns(a.name):
            return {"name": a.name.lower(), "address": own.address_of(a.name)}
        return await _ens_address_of(http, a)

    async def name_suggestions(ctx: ServiceContext | None, a: SuggestionsArgs) -> NameSuggestions:
        label = a.label
        registry = _required(own)
        return {"label": label, "suffix": registry.suffix, "available": registry.available(label),
                "suggestions": registry.suggestions(label)}

    async def register_name(ctx: ServiceContext | None, a: RegisterArgs) -> NameRegistered:
        label, address, message, signature, chain_id = a.label, a.address, a.message, a.signature, a.chain_id
        registry = _required(own)
        try:
            done = await registry.register(label_of(label, registry.suffix), address, message, signature,
                                           now_ms(), rpc_url=_rpc_url(ctx, chain_id), http=http)
        except RegistrationError as error:
            log.info("name registration refused: %s", error.reason.value)
            return {"ok": False, "error": str(error), "name": "", "address": address}
        return {"ok": True, "error": "", "name": done.name, "address": done.address}

    return _table(name_of, address_of, name_suggestions, register_name)


def _hosted_services(http: httpx.AsyncClient, api: ProfileApi, suffix: str) -> ServiceTable:
    async def name_of(ctx: ServiceContext | None, a: NameOfArgs) -> NameFound:
        found = await HostedNames(api, a.chain_id).name_of(a.address)
        return {"name": found} if found is not None else await _ens_name_of(http, a)

    async def address_of(ctx: ServiceContext | None, a: AddressOfArgs) -> AddressFound:
        name = a.name.lower()
        if name.endswith(suffix):
            return {"name": name, "address": await HostedNames(api, a.chain_id).address_of(name)}
        return await _ens_address_of(http, a)

    async def name_suggestions(ctx: ServiceContext | None, a: SuggestionsArgs) -> NameSuggestions:
        label = a.label
        wanted = full_name(label, suffix)
        answer = await api.suggestions(label, zone=suffix.lstrip("."))
        rows = answer.get("suggestions") if isinstance(answer, dict) else None
        entries = [(str(r.get("name", "")).lower(), bool(r.get("registered")))
                   for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
        taken = any(name == wanted and registered for name, registered in entries)
        free = [name for name, registered in entries if not registered and name != wanted and name]
        return {"label": label, "suffix": suffix, "available": not taken,
                "suggestions": free[: L.MAX_NAME_SUGGESTIONS]}

    async def register_name(ctx: ServiceContext | None, a: RegisterArgs) -> NameRegistered:
        label, address, message, signature, chain_id = a.label, a.address, a.message, a.signature, a.chain_id
        bare = label_of(label, suffix)
        problem = name_problem(bare)
        if problem is not None:
            return {"ok": False, "error": problem.message, "name": "", "address": address}
        name = full_name(bare, suffix)
        try:
            await api.register(name, evm_coin_type(chain_id), address, message, signature)
        except ProfileApiError as error:
            return {"ok": False, "error": str(error) or error_registering(name), "name": "", "address": address}
        return {"ok": True, "error": "", "name": name, "address": address}

    return _table(name_of, address_of, name_suggestions, register_name)


def _rpc_url(ctx: ServiceContext | None, chain_id: int) -> str | None:
    """The engine's own RPC of the registration's chain (a smart account's signature is checked
    there); None: only an EOA's signature can be accepted."""
    config = ctx.config if ctx is not None else None
    network = config.known_networks().get(f"eip155:{chain_id}") if config is not None else None
    return network.rpc_urls[0] if network is not None and network.rpc_urls else None


def _required(own: NameRegistry | None) -> NameRegistry:
    if own is None:
        raise RuntimeError("this engine has no name registry")
    return own


__all__ = ["DEFAULT_SUFFIX", "name_services"]
