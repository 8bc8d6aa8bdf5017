"""Buy in both namespaces (behaviour.md §1: onramp providers Coinbase (EVM only) and Meld (EVM and
Solana); §9: onramp on eip155 and solana), driven through sessions connected in each namespace:
the providers listed, the purchase currencies of the active network, and the destination the
onramp URL request carries."""

from __future__ import annotations

from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore.enginetest import Harness
from modalcore.services.domain.onramp_defaults import default_options
from modalcore.slices.onramp_input import PressedOnrampProvider

from ..solana.test_solana_account_rules import DUSD, SOL_ADDRESS, SOLANA_WALLET, connect_solana
from ..swap.harness import connected

QUOTE = {"fees": "1.00", "subtotal": "99.00", "total": "100", "purchaseAmount": "0.66", "quoteId": "q1"}


def providers(h: Harness) -> list[str]:
    return [str(n.p["title"]) for n in h.node("onramp/body").c if n.id.startswith("onramp/provider/")]


def solana_buy() -> Harness:
    h = Harness(options={"networks": [SOLANA_LOCAL, "eip155:31337"]}, wallets=[SOLANA_WALLET])
    connect_solana(h)
    h.host("open")
    h.expect(view="Account")
    h.press("account/feature/onramp")
    return h


def test_an_evm_account_is_offered_coinbase_and_meld() -> None:
    h = connected()
    h.press("account/feature/onramp")
    assert providers(h) == ["Coinbase", "Meld"]


def test_a_solana_account_is_offered_meld_only_and_the_networks_sol_and_spl_token() -> None:
    h = solana_buy()
    h.expect(view="OnRamp")
    assert providers(h) == ["Meld"]
    (call,) = h.pending_calls("onramp_options")
    assert call.args_data["network"] == SOLANA_LOCAL
    assert [(c["id"], c["decimals"]) for c in call.args_data["purchase"]] == [("SOL", 9), ("DUSD", 6)]
    assert call.args_data["purchase"][1]["networks"][0]["contract_address"] == DUSD
    h.settle_call("onramp_options", default_options(call.args_data["purchase"]))
    assert [n.id for n in h.node("onramp/currencies").c] == ["onramp/currency/SOL", "onramp/currency/DUSD"]
    (quote,) = h.pending_calls("onramp_quote")
    assert (quote.args_data["network"], quote.args_data["purchase_currency"]) == (SOLANA_LOCAL, "SOL")


def test_coinbase_is_refused_for_a_solana_account_even_as_a_message() -> None:
    h = solana_buy()
    h.settle_call("onramp_options", default_options(h.pending_calls("onramp_options")[0].args_data["purchase"]))
    h.settle_call("onramp_quote", QUOTE)
    assert h.find("onramp/provider/coinbase") is None
    h.deliver(PressedOnrampProvider("coinbase"))
    assert h.model.onramp.provider is None
    assert h.node("onramp/continue").p["text"] == "Choose a provider"


def test_the_onramp_url_request_carries_the_solana_destination() -> None:
    h = solana_buy()
    h.settle_call("onramp_options", default_options(h.pending_calls("onramp_options")[0].args_data["purchase"]))
    h.press("onramp/currency/DUSD")
    h.settle_call("onramp_quote", {**QUOTE, "purchaseAmount": "99"})
    h.press("onramp/provider/meld")
    assert h.node("onramp/continue").p["text"] == "Continue with Meld"
    h.press("onramp/continue")
    (call,) = h.pending_calls("onramp_url")
    assert call.args_data == {"network": SOLANA_LOCAL, "address": SOL_ADDRESS,
                         "purchase_currency": "DUSD", "payment_currency": "USD", "amount": "100"}
