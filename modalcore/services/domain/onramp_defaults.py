"""behaviour.md §8 fallbacks and §9 defaults: the options when the options call fails (USD and EUR,
card 10 to 7,500 and bank account 10 to 25,000), and the estimate shown when a quote fails
(labelled as one), at the providers' highest fee (behaviour.md §1: 1-2 %)."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import Any

PROVIDERS = (  # behaviour.md §1: id, name, namespaces, fee range
    ("coinbase", "Coinbase", ("eip155",), "1-2%"),
    ("meld", "Meld", ("eip155", "solana"), "1-2%"),
)
ESTIMATE_FEE = Decimal("0.02")
LIMITS = [{"id": "card", "min": "10", "max": "7500"}, {"id": "ach_bank_account", "min": "10", "max": "25000"}]
PAYMENT_CURRENCIES = [{"id": "USD", "payment_method_limits": LIMITS},
                      {"id": "EUR", "payment_method_limits": LIMITS}]


def default_options(purchase: list[dict[str, Any]]) -> dict[str, Any]:
    return {"paymentCurrencies": PAYMENT_CURRENCIES, "purchaseCurrencies": purchase}


def estimate(amount: Decimal, price: Decimal, decimals: int = 6) -> dict[str, str]:
    """What `amount` of fiat buys at `price`, the highest fee taken first."""
    fees = (amount * ESTIMATE_FEE).quantize(Decimal("0.01"))
    subtotal = amount - fees
    bought = (subtotal / price).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_DOWN) if price else Decimal(0)
    return {"fees": str(fees), "subtotal": str(subtotal), "total": str(amount),
            "purchaseAmount": f"{bought.normalize():f}", "quoteId": "estimate"}
