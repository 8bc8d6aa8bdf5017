"""A local onramp provider for the dev chains (demo mode, issue 16 "For development"): it quotes
at the networks' configured USD prices (the one price source per chain that balances, the
Send and Swap fiat values and the dev Uniswap pools use: `native_price` and each token's `price`)
with a 1 % fee, hands out the URL of a page the engine serves, and when the
visitor completes the purchase there, really transfers the bought token to the destination
wallet from a funded Hardhat account (eth_sendTransaction from the node's unlocked account); on
the local Solana dev chain, from a funded dev keypair (a SOL transfer, or the dev SPL token from
the account holding its supply), signed here and sent with `sendTransaction`.

Orders live in this process's memory: an order completes once, whatever is pressed twice."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from typing import Any

import httpx
from eth_utils.address import is_address, to_checksum_address
from solders.hash import Hash
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from modalcore.rules import limits as L
from modalcore.rules.addresses import is_solana_wallet_address
from modalcore_dev.solana_devchain.accounts import dev_keypair
from modalcore.solana.transfers import (
    associated_token_address, create_ata_idempotent, sol_transfer_instructions, to_base64, transfer_checked,
    unsigned_transaction)
from modalcore.services.backend.jsonrpc import batch
from modalcore.services.domain.transfer import erc20_tx, native_tx
from modalcore.services.backend.solana_rpc import SolanaRpc
from modalcore.services.domain.onramp_defaults import PAYMENT_CURRENCIES
from modalcore.services.backend.onramp.provider import OnrampRefused

EUR_IN_USD = Decimal("1.1")
FEE = Decimal("0.01")
MAX_FIAT = Decimal(25_000)  # behaviour.md §9: the highest default payment limit
NATIVE_TREASURY = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"  # Hardhat account 9
TOKEN_TREASURY = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"  # Hardhat account 4 (funded with the dev tokens)
SOL_TREASURY = 2  # Solana dev account 2 pays SOL (account 0 is the Dev Wallet's)
MAX_ORDERS = L.MAX_LOCAL_ONRAMP_ORDERS


def _solana(network: str) -> bool:
    return network.startswith("solana:")


def _usd(value: Any) -> Decimal | None:
    """A configured USD price as a Decimal (None: unknown, zero or not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        price = Decimal(str(value))
    except ArithmeticError:
        return None
    return price if price.is_finite() and price > 0 else None


def _native(network: str) -> tuple[str, str, int]:
    return ("SOL", "Solana", 9) if _solana(network) else ("ETH", "Ether", 18)


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
    # CAIP-2 id -> {rpc, name, native_price, tokens: [{address, symbol, name, decimals, price}]}: the
    # network's own configuration; a currency without a price is not offered (nothing to quote at)
    networks: dict[str, dict[str, Any]]
    orders: dict[str, Order] = field(default_factory=dict)

    def _currencies(self, network: str) -> list[dict[str, Any]]:
        entry = self.networks.get(network)
        if entry is None:
            return []
        chain_id = network.split(":", 1)[1]
        symbol, name, decimals = _native(network)
        rows = []
        if _usd(entry.get("native_price")) is not None:
            rows.append({"id": symbol, "symbol": symbol, "name": name, "decimals": decimals, "price": entry["native_price"],
                         "networks": [{"name": network, "display_name": entry.get("name", network), "chain_id": chain_id,
                                       "contract_address": ""}]})
        for token in entry.get("tokens", []):
            if _usd(token.get("price")) is not None:
                rows.append({"id": token["symbol"], "symbol": token["symbol"], "name": token["name"],
                             "decimals": int(token["decimals"]), "price": token["price"],
                             "networks": [{"name": network, "display_name": entry.get("name", network),
                                           "chain_id": chain_id, "contract_address": token["address"]}]})
        return rows

    def options(self, network: str) -> dict[str, Any]:
        rows = [{k: v for k, v in row.items() if k != "price"} for row in self._currencies(network)]
        return {"paymentCurrencies": PAYMENT_CURRENCIES, "purchaseCurrencies": rows}

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
        price = _usd(currency["price"])
        assert price is not None  # only priced currencies are offered
        bought = ((usd - usd * FEE) / price).quantize(
            Decimal(1).scaleb(-min(6, int(currency["decimals"]))), rounding=ROUND_DOWN)
        return {"fees": str(fees), "subtotal": str(fiat - fees), "total": str(fiat),
                "purchaseAmount": f"{bought.normalize():f}", "quoteId": f"local-{secrets.token_hex(4)}"}

    def order_url(self, address: str, network: str, purchase_currency: str, payment_currency: str,
                  amount: str) -> str:
        if not (is_solana_wallet_address(address) if _solana(network) else is_address(address)):
            raise OnrampRefused("Invalid destination wallet")
        currency = self._currency(network, purchase_currency)
        quote = self.quote(purchase_currency, payment_currency, amount, network)
        if len(self.orders) >= MAX_ORDERS:
            self.orders.pop(next(iter(self.orders)))
        contract = currency["networks"][0]["contract_address"] or None
        decimals = int(currency["decimals"])
        destination = address if _solana(network) else to_checksum_address(address)
        order = Order(secrets.token_urlsafe(12), destination, network,
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
        if _solana(order.network):
            order.tx = await self._solana_transfer(http, order)
            return order
        if order.token is None:
            tx = native_tx(NATIVE_TREASURY, order.address, order.units)
        else:
            tx = erc20_tx(TOKEN_TREASURY, order.token, order.address, order.units)
        (tx_hash,) = await batch(http, order.rpc_url, [("eth_sendTransaction", [tx])])
        order.tx = str(tx_hash)
        return order

    async def _solana_transfer(self, http: httpx.AsyncClient, order: Order) -> str:
        """SOL from dev account SOL_TREASURY, or the dev SPL token from account 0 (its supply);
        SOL_TREASURY pays the fee and any token account's rent either way."""
        rpc = SolanaRpc(http, order.rpc_url)
        receiver = Pubkey.from_string(order.address)
        payer = dev_keypair(SOL_TREASURY)
        signers: list[Keypair] = [payer]
        if order.token is None:
            instructions = sol_transfer_instructions(payer.pubkey(), receiver, order.units)
        else:
            owner, mint = dev_keypair(0), Pubkey.from_string(order.token)
            signers.append(owner)
            instructions = [
                create_ata_idempotent(payer.pubkey(), receiver, mint),
                transfer_checked(associated_token_address(owner.pubkey(), mint), mint,
                                 associated_token_address(receiver, mint), owner.pubkey(), order.units,
                                 order.decimals)]
        blockhash, _ = await rpc.latest_blockhash()
        tx = unsigned_transaction(instructions, payer.pubkey(), Hash.from_string(blockhash))
        tx.sign(signers, tx.message.recent_blockhash)
        return await rpc.send_transaction(to_base64(tx))
