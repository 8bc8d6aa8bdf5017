"""Number display (SPEC §5: balances floored to 3 decimals or '0.000'; fiat with 2 decimals)."""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from .texts import ZERO_AMOUNT


def quantity(raw: int | str, decimals: int) -> Decimal:
    return Decimal(int(raw)) / (Decimal(10) ** decimals)


def floor3(value: Decimal | str) -> str:
    amount = Decimal(value)
    if amount <= 0:
        return ZERO_AMOUNT
    return str(amount.quantize(Decimal("0.001"), rounding=ROUND_DOWN))


def fiat(value: Decimal | float | str) -> str:
    return str(Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def usd(value: Decimal | float | str) -> str:
    return f"${fiat(value)}"
