"""Swaps (SPEC §1, §7, §9): the quote-provider interface, the local Uniswap V2 provider and the
hosted `/v1/convert/*` client."""

from __future__ import annotations

from .amounts import min_received, parse_slippage, price_impact
from .convert_api import NATIVE_TOKEN_ADDRESS, ConvertApi
from .hosted_provider import HostedSwapProvider
from .select import swap_provider
from .networks import SUPPORTED_SWAP_CHAINS, is_swap_network
from .types import (
    DEFAULT_SLIPPAGE,
    INSUFFICIENT_LIQUIDITY,
    NATIVE,
    NOT_SUPPORTED_GAS_PRICE,
    NOT_SUPPORTED_SWAPS,
    InsufficientLiquidity,
    Quote,
    QuoteProvider,
    SwapError,
    SwapNotSupported,
    TxRequest,
)
from .uniswap_v2 import UniswapV2Market, UniswapV2Provider

__all__ = [
    "DEFAULT_SLIPPAGE", "INSUFFICIENT_LIQUIDITY", "NATIVE", "NATIVE_TOKEN_ADDRESS",
    "NOT_SUPPORTED_GAS_PRICE", "NOT_SUPPORTED_SWAPS", "SUPPORTED_SWAP_CHAINS", "ConvertApi",
    "HostedSwapProvider",
    "InsufficientLiquidity", "Quote", "QuoteProvider", "SwapError", "SwapNotSupported",
    "TxRequest", "UniswapV2Market", "UniswapV2Provider", "is_swap_network", "min_received",
    "parse_slippage", "price_impact", "swap_provider",
]
