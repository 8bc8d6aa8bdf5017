"""The name services behind `Call` commands: an address's name, a name's address, suggestions
and registration. Names under the account-name suffix live in the engine's own registry
(NameRegistry), or, when the operator configures the hosted Blockchain API, there (SPEC §7
profile endpoints, `ProfileApi`: the production path); other names are read from the chain's
ENS (services/ens.py) when the network has a registry. An address's name comes from the
account-name registry first, then from ENS (reverse, checked forward). Caching is the
session's (5 minutes, SPEC §9, slices/names.py): these read fresh. Failures raise (or, for a
registration, answer) with SPEC §8's message."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict

from ..rules import limits as L
from ..rules.names import DEFAULT_SUFFIX, error_registering, full_name, name_problem
from ..runtime.services import AnyService, Service, ServiceContext
from .ens import EnsDeployment, EnsNames
from .name_registry import NameRegistry, RegistrationError, label_of
from .profile_api import HostedNames, ProfileApi, ProfileApiError, evm_coin_type


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NameOfArgs(_Args):
    chain_id: int
    rpc_url: str = ""
    registry: str = ""  # the chain's ENS registry ("" : none)
    address: str


class AddressOfArgs(_Args):
    chain_id: int
    rpc_url: str = ""
    registry: str = ""
    name: str


class SuggestionsArgs(_Args):
    label: str


class RegisterArgs(_Args):
    label: str
    address: str
    message: str
    signature: str
    chain_id: int = 1


def _ens(http: httpx.AsyncClient, chain_id: int, rpc_url: str, registry: str) -> EnsNames | None:
    if not registry or not rpc_url:
        return None
    return EnsNames(http, rpc_url, EnsDeployment(chain_id, registry))


def _suffix(suffix: str) -> str:
    return suffix if suffix.startswith(".") else "." + suffix


def _required(own: NameRegistry | None) -> NameRegistry:
    if own is None:
        raise RuntimeError("this engine has no name registry")
    return own


def name_services(http: httpx.AsyncClient, own: NameRegistry | None = None,
                  clock_ms: Callable[[], int] | None = None, hosted: ProfileApi | None = None,
                  hosted_suffix: str = DEFAULT_SUFFIX) -> dict[str, AnyService]:
    """`name_of`, `address_of`, `name_suggestions`, `register_name`. `clock_ms` (a function
    returning unix ms) dates registrations; the runtime's clock by default. With `hosted`, the
    account names (suffix `hosted_suffix`) are the hosted API's, not `own`'s."""
    if hosted is not None:
        return _hosted_services(http, hosted, _suffix(hosted_suffix))

    def now_ms(ctx: ServiceContext | None) -> int:
        if clock_ms is not None:
            return clock_ms()
        return ctx.clock.now_ms() if ctx is not None else int(time.time() * 1000)

    async def name_of(ctx: ServiceContext | None, args: NameOfArgs) -> dict[str, Any]:
        if own is not None:
            found = own.name_of(args.address)
            if found is not None:
                return {"name": found}
        ens = _ens(http, args.chain_id, args.rpc_url, args.registry)
        return {"name": await ens.name_of(args.address) if ens is not None else None}

    async def address_of(ctx: ServiceContext | None, args: AddressOfArgs) -> dict[str, Any]:
        name = args.name.lower()
        if own is not None and own.owns(name):
            return {"name": name, "address": own.address_of(name)}
        ens = _ens(http, args.chain_id, args.rpc_url, args.registry)
        return {"name": name, "address": await ens.address_of(name) if ens is not None else None}

    async def name_suggestions(ctx: ServiceContext | None, args: SuggestionsArgs) -> dict[str, Any]:
        registry = _required(own)
        return {"label": args.label, "suffix": registry.suffix, "available": registry.available(args.label),
                "suggestions": registry.suggestions(args.label)}

    async def register_name(ctx: ServiceContext | None, args: RegisterArgs) -> dict[str, Any]:
        registry = _required(own)
        try:
            done = registry.register(label_of(args.label, registry.suffix), args.address, args.message,
                                     args.signature, now_ms(ctx))
        except RegistrationError as error:
            return {"ok": False, "error": str(error), "name": "", "address": args.address}
        return {"ok": True, "error": "", "name": done.name, "address": done.address}

    return {"name_of": Service(NameOfArgs, name_of), "address_of": Service(AddressOfArgs, address_of),
            "name_suggestions": Service(SuggestionsArgs, name_suggestions),
            "register_name": Service(RegisterArgs, register_name)}


def _hosted_services(http: httpx.AsyncClient, api: ProfileApi, suffix: str) -> dict[str, AnyService]:
    async def name_of(ctx: ServiceContext | None, args: NameOfArgs) -> dict[str, Any]:
        found = await HostedNames(api, args.chain_id).name_of(args.address)
        if found is not None:
            return {"name": found}
        ens = _ens(http, args.chain_id, args.rpc_url, args.registry)
        return {"name": await ens.name_of(args.address) if ens is not None else None}

    async def address_of(ctx: ServiceContext | None, args: AddressOfArgs) -> dict[str, Any]:
        name = args.name.lower()
        if name.endswith(suffix):
            return {"name": name, "address": await HostedNames(api, args.chain_id).address_of(name)}
        ens = _ens(http, args.chain_id, args.rpc_url, args.registry)
        return {"name": name, "address": await ens.address_of(name) if ens is not None else None}

    async def name_suggestions(ctx: ServiceContext | None, args: SuggestionsArgs) -> dict[str, Any]:
        wanted = full_name(args.label, suffix)
        answer = await api.suggestions(args.label, zone=suffix.lstrip("."))
        rows = answer.get("suggestions") if isinstance(answer, dict) else None
        entries = [(str(r.get("name", "")).lower(), bool(r.get("registered")))
                   for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
        taken = any(name == wanted and registered for name, registered in entries)
        free = [name for name, registered in entries if not registered and name != wanted and name]
        return {"label": args.label, "suffix": suffix, "available": not taken,
                "suggestions": free[: L.MAX_NAME_SUGGESTIONS]}

    async def register_name(ctx: ServiceContext | None, args: RegisterArgs) -> dict[str, Any]:
        bare = label_of(args.label, suffix)
        problem = name_problem(bare)
        if problem is not None:
            return {"ok": False, "error": problem.message, "name": "", "address": args.address}
        name = full_name(bare, suffix)
        try:
            await api.register(name, evm_coin_type(args.chain_id), args.address, args.message, args.signature)
        except ProfileApiError as error:
            return {"ok": False, "error": str(error) or error_registering(name), "name": "",
                    "address": args.address}
        return {"ok": True, "error": "", "name": name, "address": args.address}

    return {"name_of": Service(NameOfArgs, name_of), "address_of": Service(AddressOfArgs, address_of),
            "name_suggestions": Service(SuggestionsArgs, name_suggestions),
            "register_name": Service(RegisterArgs, register_name)}


__all__ = ["DEFAULT_SUFFIX", "name_services"]
