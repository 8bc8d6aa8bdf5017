"""Which quote provider serves a network: its local Uniswap V2 market when it has one (the dev
chains), else the hosted /v1/convert/* API on behaviour.md §9's swap networks, else none ('Network not
supported for Swaps')."""

from __future__ import annotations

import httpx

from .convert_api import ConvertApi
from .hosted_provider import HostedSwapProvider
from .networks import chain_of
from ...domain.swap_types import NOT_SUPPORTED_SWAPS, QuoteProvider, SwapNotSupported
from .uniswap_v2 import UniswapV2Market, UniswapV2Provider


def swap_provider(network_id: str, http: httpx.AsyncClient, *, rpc_url: str = "",
                  market: UniswapV2Market | None = None,
                  hosted: ConvertApi | None = None) -> QuoteProvider:
    chain_id = chain_of(network_id)
    if chain_id is None:
        raise SwapNotSupported(NOT_SUPPORTED_SWAPS)
    if market is not None and market.chain_id == chain_id and rpc_url:
        return UniswapV2Provider(http, rpc_url, market)
    if hosted is not None:
        return HostedSwapProvider(hosted, chain_id)  # refuses networks outside behaviour.md §9's list
    raise SwapNotSupported(NOT_SUPPORTED_SWAPS)
