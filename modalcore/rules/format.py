"""Number display (behaviour.md §5: balances floored to 3 decimals or '0.000'; fiat with 2 decimals).

Every number the modal shows is grouped in thousands ("9,998.992 ETH", "$959,000.00"), the way
the Activity tab already shows quantities. Values the visitor edits (the send amount) are never
grouped: the amount field reads "," as a decimal separator.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_UP, ROUND_UP, Decimal
from .texts import ZERO_AMOUNT


def quantity(raw: int | str, decimals: int) -> Decimal:
    return Decimal(int(raw)) / (Decimal(10) ** decimals)


def floor3(value: Decimal | str) -> str:
    """A balance: floored to 3 decimals, thousands grouped ('9,998.992'), or '0.000'."""
    amount = Decimal(value)
    if amount <= 0:
        return ZERO_AMOUNT
    return f"{amount.quantize(Decimal('0.001'), rounding=ROUND_DOWN):,f}"


def fiat(value: Decimal | float | str) -> str:
    """A fiat amount: 2 decimals, rounded half up, thousands grouped ('959,000.00')."""
    return f"{Decimal(str(value)).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):,f}"


def usd(value: Decimal | float | str) -> str:
    return f"${fiat(value)}"


def network_fee(amount: Decimal, native_price: float | None, symbol: str) -> str:
    """An estimated network fee: '~$0.42' where the native currency has a price ('<$0.01' below a
    cent, never '~$0.00' for a fee that is not free), else '~0.000021 ETH' rounded up to 6 places."""
    if native_price:
        value = amount * Decimal(str(native_price))
        return "<$0.01" if 0 < value < Decimal("0.01") else f"~{usd(value)}"
    shown = amount.quantize(Decimal("0.000001"), rounding=ROUND_UP) if amount else Decimal(0)
    return f"~{shown.normalize():f} {symbol}"


REVIEW_DECIMALS = 6


def review_amount(amount: str) -> str:
    """The amount a review headline shows: as typed (never grouped, like the field), except a
    fraction longer than 6 decimals ('Max' of an 18-decimal balance gives 22 digits, which wrapped
    over three lines), floored to 6 and marked approximate: '~9999.999957'."""
    typed = amount.strip().replace(",", ".")
    whole, _, fraction = typed.partition(".")
    if len(fraction) <= REVIEW_DECIMALS or not (whole + fraction).isdigit():
        return amount
    shown = Decimal(typed).quantize(Decimal(1).scaleb(-REVIEW_DECIMALS), rounding=ROUND_DOWN)
    return f"~{shown.normalize():f}" if shown else amount  # a dust amount stays as typed


def amount_with_symbol(amount: str, symbol: str) -> str:
    """'9,998.992 ETH' (an amount already formatted, then its symbol when there is one)."""
    return f"{amount} {symbol}".strip()
