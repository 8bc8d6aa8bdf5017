"""Pure swap arithmetic: slippage, minimum received and price impact (Uniswap V2 formulas)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction

from ...domain.swap_types import DEFAULT_SLIPPAGE, SwapError

MAX_SLIPPAGE = Decimal(50)
FEE_NUMERATOR, FEE_DENOMINATOR = 997, 1000  # Uniswap V2: 0.3% of the input stays in the pool


def parse_slippage(value: str | Decimal | int | None) -> Decimal:
    """A slippage percent in [0, 50]; None or '' means the default (behaviour.md §9: 1)."""
    if value is None or value == "":
        return DEFAULT_SLIPPAGE
    try:
        slippage = Decimal(str(value).strip())
    except InvalidOperation:
        raise SwapError(f"Invalid slippage: {value}") from None
    if not slippage.is_finite() or slippage < 0 or slippage > MAX_SLIPPAGE:
        raise SwapError(f"Slippage must be between 0 and {MAX_SLIPPAGE}%")
    return slippage


def min_received(amount_out: int, slippage: Decimal) -> int:
    """amount_out × (1 − slippage%), floored: what the swap requires at least."""
    factor = Fraction(100) - Fraction(slippage)
    return int(amount_out * factor / 100)


def amount_out(amount_in: int, reserve_in: int, reserve_out: int) -> int:
    """UniswapV2Library.getAmountOut."""
    if amount_in <= 0 or reserve_in <= 0 or reserve_out <= 0:
        return 0
    with_fee = amount_in * FEE_NUMERATOR
    return with_fee * reserve_out // (reserve_in * FEE_DENOMINATOR + with_fee)


def price_impact(amount_in: int, amount_out_: int, reserves: Sequence[tuple[int, int]]) -> Decimal:
    """How far the swap's price is below the pools' mid price, in percent (2 decimals), the
    fee included (as Uniswap's SDK v2 Trade.priceImpact). `reserves` are (in, out) per hop."""
    mid_out = Fraction(amount_in)
    for reserve_in, reserve_out in reserves:
        mid_out = mid_out * reserve_out / reserve_in
    if mid_out <= 0:
        return Decimal(0)
    impact = (mid_out - amount_out_) / mid_out * 100
    return (Decimal(impact.numerator) / Decimal(impact.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP)
