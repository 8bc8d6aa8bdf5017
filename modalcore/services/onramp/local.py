"""A local onramp provider for the dev chains (demo mode, issue 16 "For development"): it quotes
at its own fixed prices and 1 % fee, hands out the URL of a page the engine serves, and when the
visitor completes the purchase there, really transfers the bought token to the destination
wallet from a funded Hardhat account (eth_sendTransaction from the node's unlocked account).

Orders live in this process's memory: an order completes once, whatever is pressed twice."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from typing import Any

import httpx
from eth_utils.address import is_address, to_checksum_address

from ...rules import limits as L
from ..jsonrpc import batch
from ..send import erc20_tx, native_tx
from .defaults import PAYMENT_CURRENCIES

PRICES = {"ETH": Decimal(3000), "TUSD": Decimal(1), "DEMO": Decimal(2)}  # USD, this provider's own
EUR_IN_USD = Decimal("1.1")
FEE = Decimal("0.01")
MAX_FIAT = Decimal(25_000)  # SPEC §9: the highest default payment limit
NATIVE_TREASURY = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"  # Hardhat account 9
TOKEN_TREASURY = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"  # Hardhat account 4 (funded with the dev tokens)
MAX_ORDERS = L.MAX_LOCAL_ONRAMP_ORDERS


class OnrampRefused(ValueError):
    """The local provider cannot take or complete this order; `str(error)` is shown."""


@dataclass
class Order:
    id: str
    address: str
    network: str
    rpc_url: str
    symbol: str
    token: str | None  # None: the native currency
    decimals: int
    units: int
    fiat: str
    currency: str
    tx: str = ""


@dataclass
class LocalOnramp:
    public_url: str  # the engine as browsers reach it ("http://127.0.0.1:8000")
    networks: dict[str, dict[str, Any]]  # CAIP-2 id -> {rpc, tokens: [{address, symbol, name, decimals}]}
    orders: dict[str, Order] = field(default_factory=dict)

    def _currencies(self, network: str) -> list[dict[str, Any]]:
        entry = self.networks.get(network)
        if entry is None:
            return []
        chain_id = network.split(":", 1)[1]
        rows = [{"id": "ETH", "symbol": "ETH", "name": "Ether", "decimals": 18,
                 "networks": [{"name": network, "display_name": entry.get("name", network), "chain_id": chain_id,
                               "contract_address": ""}]}]
        for token in entry.get("tokens", []):
            if token["symbol"] in PRICES:
                rows.append({"id": token["symbol"], "symbol": token["symbol"], "name": token["name"],
                             "decimals": int(token["decimals"]),
                             "networks": [{"name": network, "display_name": entry.get("name", network),
                                           "chain_id": chain_id, "contract_address": token["address"]}]})
        return rows

    def options(self, network: str) -> dict[str, Any]:
        return {"paymentCurrencies": PAYMENT_CURRENCIES, "purchaseCurrencies": self._currencies(network)}

    def _currency(self, network: str, symbol: str) -> dict[str, Any]:
        found = next((c for c in self._currencies(network) if c["id"] == symbol), None)
        if found is None:
            raise OnrampRefused(f"{symbol} cannot be bought on {network} here")
        return found

    def quote(self, purchase_currency: str, payment_currency: str, amount: str, network: str) -> dict[str, str]:
        currency = self._currency(network, purchase_currency)
        try:
            fiat = Decimal(amount)
        except ArithmeticError:
            raise OnrampRefused("Invalid amount") from None
        if not fiat.is_finite() or fiat <= 0 or fiat > MAX_FIAT:
            raise OnrampRefused("Invalid amount")
        usd = fiat * (EUR_IN_USD if payment_currency == "EUR" else Decimal(1))
        fees = (fiat * FEE).quantize(Decimal("0.01"))
        bought = ((usd - usd * FEE) / PRICES[currency["id"]]).quantize(
            Decimal(1).scaleb(-min(6, int(currency["decimals"]))), rounding=ROUND_DOWN)
        return {"fees": str(fees), "subtotal": str(fiat - fees), "total": str(fiat),
                "purchaseAmount": f"{bought.normalize():f}", "quoteId": f"local-{secrets.token_hex(4)}"}

    def order_url(self, address: str, network: str, purchase_currency: str, payment_currency: str,
                  amount: str) -> str:
        if not is_address(address):
            raise OnrampRefused("Invalid destination wallet")
        currency = self._currency(network, purchase_currency)
        quote = self.quote(purchase_currency, payment_currency, amount, network)
        if len(self.orders) >= MAX_ORDERS:
            self.orders.pop(next(iter(self.orders)))
        contract = currency["networks"][0]["contract_address"] or None
        decimals = int(currency["decimals"])
        order = Order(secrets.token_urlsafe(12), to_checksum_address(address), network,
                      str(self.networks[network]["rpc"]), currency["id"], contract, decimals,
                      int(Decimal(quote["purchaseAmount"]).scaleb(decimals)), quote["total"], payment_currency)
        self.orders[order.id] = order
        return f"{self.public_url.rstrip('/')}/onramp/local?order={order.id}"

    def purchases(self) -> frozenset[str]:
        """The hashes of the transfers this provider sent for completed orders (lowercase):
        what Activity draws as purchases rather than as "Received"."""
        return frozenset(order.tx.lower() for order in self.orders.values() if order.tx)

    async def complete(self, http: httpx.AsyncClient, order_id: str) -> Order:
        order = self.orders.get(order_id)
        if order is None:
            raise OnrampRefused("No such order")
        if order.tx:
            return order  # completed already: never twice
        if order.token is None:
            tx = native_tx(NATIVE_TREASURY, order.address, order.units)
        else:
            tx = erc20_tx(TOKEN_TREASURY, order.token, order.address, order.units)
        (tx_hash,) = await batch(http, order.rpc_url, [("eth_sendTransaction", [tx])])
        order.tx = str(tx_hash)
        return order
