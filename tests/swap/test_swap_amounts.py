"""Pure swap arithmetic: slippage (behaviour.md §9 default 1), minimum received, price impact."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modalcore.services.backend.swap.amounts import min_received, parse_slippage, price_impact
from modalcore.services.domain.swap_types import DEFAULT_SLIPPAGE, SwapError
from modalcore.services.backend.swap.amounts import amount_out


def test_slippage_defaults_to_1_percent() -> None:
    assert DEFAULT_SLIPPAGE == Decimal(1)
    assert parse_slippage(None) == parse_slippage("") == Decimal(1)
    assert parse_slippage("0.5") == Decimal("0.5")


@pytest.mark.parametrize("bad", ["-1", "50.01", "abc", "NaN", "Infinity"])
def test_slippage_outside_0_to_50_is_refused(bad: str) -> None:
    with pytest.raises(SwapError):
        parse_slippage(bad)


def test_minimum_received_is_floored_after_slippage() -> None:
    assert min_received(1000, Decimal(1)) == 990
    assert min_received(999, Decimal(1)) == 989  # 989.01 floored
    assert min_received(12345, Decimal("0.5")) == 12283  # 12283.275 floored
    assert min_received(7, Decimal(0)) == 7


@given(st.integers(0, 10**30), st.decimals(0, 50, places=2))
def test_minimum_received_never_exceeds_the_quote(out: int, slippage: Decimal) -> None:
    assert 0 <= min_received(out, slippage) <= out


def test_amount_out_is_uniswap_v2s_formula() -> None:
    assert amount_out(10**18, 50 * 10**18, 50_000 * 10**18) == 977_508_480_891_032_805_851
    assert amount_out(0, 1, 1) == amount_out(1, 0, 1) == 0


def test_price_impact_against_the_mid_price_over_every_hop() -> None:
    assert price_impact(1000, 1000, [(10, 10)]) == Decimal("0.00")
    assert price_impact(100, 90, [(1000, 1000)]) == Decimal("10.00")
    # two hops: mid price 2 × 3 = 6 per unit in; 10 in → 60 at mid; 57 received → 5 %
    assert price_impact(10, 57, [(100, 200), (100, 300)]) == Decimal("5.00")
