"""Buy for a Solana account on the local Solana dev chain (issue 18 item 4, behaviour.md §1 Meld for
Solana): a session's Buy view gets its options, quote and order URL from the local onramp
provider; completing the order transfers exactly the bought SOL (or dev SPL token) from a funded
dev account to the visitor's Solana account, once; and the Account shows it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from solders.keypair import Keypair

from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore.enginetest import Harness
from modalcore.services.backend.onramp.provider import OnrampRefused
from modalcore_dev.onramp import LocalOnramp
from modalcore.services.backend.onramp.service import onramp_services
from modalcore.slices.onramp_open import POLL_MS
from modalcore_dev.solana_devchain.accounts import DEV_TOKEN
from modalcore_dev.solana_devchain.network import solana_dev_network
from modalcore_dev.solana_devchain.process import SolanaDevchain

from ..solana.harness import connect, settle, solana_harness
from ..solana.test_solana_account_rules import TOKEN_ACCOUNT
from ..solana.test_solana_send_chain import balance, tokens


def provider(url: str) -> LocalOnramp:
    entry = solana_dev_network(url)[SOLANA_LOCAL]
    return LocalOnramp("http://127.0.0.1:9", {SOLANA_LOCAL: {"rpc": url, "name": entry["name"],
                                                             "native_price": entry["native_price"],
                                                             "tokens": entry["tokens"]}})


def run(local: LocalOnramp, service: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        return await next(s for ref, s in onramp_services(local, None).items() if ref.name == service)(**args)
    return asyncio.run(go())


def complete(local: LocalOnramp, url: str) -> str:
    async def go() -> str:
        async with httpx.AsyncClient() as http:
            order = await local.complete(http, url.rsplit("=", 1)[1])
            again = await local.complete(http, url.rsplit("=", 1)[1])  # pressed twice: one transfer
            assert again.tx == order.tx
            return order.tx
    return asyncio.run(go())


def open_buy(h: Harness, local: LocalOnramp) -> None:
    """Account → Buy; the local provider's options, and its quote for the first currency."""
    h.host("open")
    h.press("account/feature/onramp")
    (options,) = h.pending_calls("onramp_options")
    h.settle_call("onramp_options", run(local, "onramp_options", dict(options.args_data)))
    h.settle_call("onramp_quote", run(local, "onramp_quote", dict(h.pending_calls("onramp_quote")[-1].args_data)))


def on_buy(url: str) -> tuple[Harness, LocalOnramp, Keypair]:
    """A new visitor's Solana wallet connected, its balances read, on Buy with the local provider."""
    local = provider(url)
    visitor = Keypair()
    h = solana_harness(url)
    connect(h, visitor)
    settle(h, "solana_balances")
    open_buy(h, local)
    return h, local, visitor


def buy(h: Harness, local: LocalOnramp, currency: str) -> str:
    """On Buy: `currency` → Meld → 100 USD → Continue; the local provider's order URL."""
    if h.model.onramp.purchase != currency:
        h.press(f"onramp/currency/{currency}")
        h.settle_call("onramp_quote", run(local, "onramp_quote", dict(h.pending_calls("onramp_quote")[-1].args_data)))
    h.press("onramp/provider/meld")
    h.press("onramp/continue")
    (made,) = h.pending_calls("onramp_url")
    answer = run(local, "onramp_url", dict(made.args_data))
    h.settle_call("onramp_url", answer)
    h.answer("open_url", None)
    h.expect(view="Account")
    return str(answer["url"])


def test_buying_sol_credits_exactly_the_quoted_lamports_once(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    h, local, visitor = on_buy(url)
    assert [n.id for n in h.node("onramp/currencies").c] == ["onramp/currency/SOL", "onramp/currency/DUSD"]
    assert h.node("onramp/quote/get/value").p["text"] == "0.66 SOL"  # 99 USD at the provider's 150 USD
    order_url = buy(h, local, "SOL")
    complete(local, order_url)
    assert balance(url, str(visitor.pubkey())) == 660_000_000
    h.cmds.clear()
    h.advance(POLL_MS)  # the Account reads the balances again while the provider delivers
    settle(h, "solana_balances")
    assert h.node("account/balance").p["text"] == "0.660 SOL"


def test_buying_the_dev_spl_token_credits_its_token_account(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    h, local, visitor = on_buy(url)
    order_url = buy(h, local, DEV_TOKEN.symbol)
    complete(local, order_url)
    assert tokens(url, str(visitor.pubkey())) == {str(DEV_TOKEN.mint): 99_000_000}  # 99 DUSD at 1 USD
    assert balance(url, str(visitor.pubkey())) == 0  # the provider paid the fee and the token account's rent


def test_a_solana_order_needs_a_wallet_address_on_the_curve(solana_devchain: SolanaDevchain) -> None:
    local = provider(solana_devchain.rpc_url)
    for address in ("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", TOKEN_ACCOUNT, "not-an-address"):
        with pytest.raises(OnrampRefused, match="Invalid destination wallet"):
            local.order_url(address, SOLANA_LOCAL, "SOL", "USD", "100")
    with pytest.raises(OnrampRefused):
        local.quote("ETH", "USD", "100", SOLANA_LOCAL)  # Ether is not sold on Solana
