"""Putting the engine's services on the runtime's registry (called when the app starts, once the
shared HTTP client exists)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import httpx
from eth_account.signers.local import LocalAccount

from ...directory.backend.source import directory_services
from ...core.services import ServiceTable
from ...siwx.backend.service import siwx_services
from ...siwx.backend.store import SiwxStore
from ...rules.names import DEFAULT_SUFFIX
from .name_registry import NameRegistry
from .blockchain_api import BlockchainApi
from .names import name_services
from .profile_api import ProfileApi
from .onramp.provider import OnrampProvider
from .swap.uniswap_v2 import UniswapV2Market
from .table import default_services

if TYPE_CHECKING:  # the runtime's registry, filled here (the runtime sits above the services)
    from ...runtime.services import ServiceRegistry


def register_engine_services(
    registry: ServiceRegistry, http: httpx.AsyncClient, siwx_store: SiwxStore, signer: LocalAccount,
    names: NameRegistry | None = None, names_api: ProfileApi | None = None,
    local_onramp: OnrampProvider | None = None, blockchain_api: BlockchainApi | None = None,
    swap_markets: Mapping[int, UniswapV2Market] | None = None,
) -> None:
    """Register what the registry does not have yet (tests may bring their own). `names` is the
    engine's own name registry (lookups include it; registration needs it); `names_api`, when
    the operator configures the hosted profile API, takes its place. `blockchain_api`, when the
    operator configures the hosted Blockchain API (behaviour.md §7), serves history (with onramp
    purchases), swap quotes on the networks it supports and onramp options, quotes and URLs."""
    suffix = names.suffix if names is not None else DEFAULT_SUFFIX
    engine_services = {**default_services(http, blockchain_api, local_onramp=local_onramp, swap_markets=swap_markets),
                       **name_services(http, names, hosted=names_api, hosted_suffix=suffix)}
    services: ServiceTable = engine_services
    services.update(siwx_services(siwx_store, http, signer))
    services.update(directory_services())
    for ref, service in services.items():
        if ref not in registry:
            registry.register(ref, service)
