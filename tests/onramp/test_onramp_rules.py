"""Buy (onramp) rules (issue 16 "Buy"; behaviour.md §1 providers and fees, §3 onramp entities, §8
fallbacks, §9 default limits), driven through the Harness: intents in, tree and commands out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from modalcore.enginetest import Harness
from modalcore.services.domain.onramp_defaults import PAYMENT_CURRENCIES
from modalcore.slices.onramp_open import POLL_MS, PressedOnrampContinue
from modalcore.slices.onramp_quote import QUOTE_DEBOUNCE_MS

from ..swap.harness import SOLANA, TUSD, connected

ETH_CURRENCY = {"id": "ETH", "symbol": "ETH", "name": "Ether", "decimals": 18,
                "networks": [{"name": "hardhat", "display_name": "Hardhat", "chain_id": "31337", "contract_address": ""}]}
TUSD_CURRENCY = {"id": "TUSD", "symbol": "TUSD", "name": "Test USD", "decimals": 6,
                 "networks": [{"chain_id": "31337", "contract_address": TUSD.address}]}
OTHER_CHAIN = {"id": "USDC", "name": "USD Coin", "networks": [{"chain_id": "1", "contract_address": "0xa0b8"}]}
OPTIONS = {"paymentCurrencies": PAYMENT_CURRENCIES, "purchaseCurrencies": [ETH_CURRENCY, TUSD_CURRENCY, OTHER_CHAIN]}
QUOTE = {"fees": "1.00", "subtotal": "99.00", "total": "100", "purchaseAmount": "0.033", "quoteId": "q1"}


def on_buy() -> Harness:
    h = connected()
    h.press("account/feature/onramp")
    return h


def with_options(options: dict[str, Any] = OPTIONS) -> Harness:
    h = on_buy()
    h.settle_call("onramp_options", options)
    return h


def quoted(answer: dict[str, Any] = QUOTE) -> Harness:
    h = with_options()
    h.settle_call("onramp_quote", answer)
    return h


def test_the_account_buy_button_opens_buy_and_asks_for_the_networks_options() -> None:
    h = connected()
    assert [n.p["text"] for n in h.node("account/features").c] == ["Buy", "Swap", "Receive", "Send"]
    h.press("account/feature/onramp")
    h.expect(view="OnRamp", text="Buy")
    (call,) = h.pending_calls("onramp_options")
    assert call.args_data["network"] == "eip155:31337"
    assert [c["id"] for c in call.args_data["purchase"]] == ["ETH", "DEMO", "TUSD"]  # the built-in fallback's list


def test_the_providers_are_coinbase_and_meld_with_their_fee_range_on_evm() -> None:
    h = on_buy()
    assert h.node("onramp/provider/coinbase").p["title"] == "Coinbase"
    assert h.node("onramp/provider/meld").p["subtitle"] == "Fees 1-2%"


def test_only_meld_serves_solana() -> None:
    h = on_buy()
    h.apply(lambda m: (replace(m, networks=replace(m.networks, active=SOLANA)), []))
    assert h.find("onramp/provider/coinbase") is None
    assert h.node("onramp/provider/meld").p["title"] == "Meld"


def test_the_purchase_currencies_are_the_networks_and_a_quote_follows_at_once() -> None:
    h = with_options()
    assert [n.id for n in h.node("onramp/currencies").c] == ["onramp/currency/ETH", "onramp/currency/TUSD"]
    assert [n.id for n in h.node("onramp/payments").c] == ["onramp/payment/USD", "onramp/payment/EUR"]
    (call,) = h.pending_calls("onramp_quote")
    assert call.args_data == {"network": "eip155:31337", "purchase_currency": "ETH", "payment_currency": "USD",
                         "amount": "100", "price": "3000.0", "decimals": 6}


def test_the_quote_shows_what_it_buys_fees_subtotal_and_total() -> None:
    h = quoted()
    assert h.node("onramp/quote/get/value").p["text"] == "0.033 ETH"
    assert h.node("onramp/quote/fees/value").p["text"] == "1.00 USD"
    assert h.node("onramp/quote/subtotal/value").p["text"] == "99.00 USD"
    assert h.node("onramp/quote/total/value").p["text"] == "100.00 USD"
    assert h.find("onramp/quote/estimate") is None


def test_an_estimate_is_labelled_as_one() -> None:
    h = quoted({**QUOTE, "estimate": True})
    h.expect(text="Estimate: the provider's quote is unavailable")


def test_typing_an_amount_waits_for_a_pause_before_quoting() -> None:
    h = quoted()
    h.intent("onramp/amount", "change", {"value": "250"})
    assert h.pending_calls("onramp_quote") == []
    h.advance(QUOTE_DEBOUNCE_MS)
    (call,) = h.pending_calls("onramp_quote")
    assert call.args_data["amount"] == "250"


def test_a_quote_for_an_amount_changed_since_is_dropped() -> None:
    h = with_options()
    (first,) = h.pending_calls("onramp_quote")  # for the default 100
    h.press("onramp/preset/250")  # the first answer arrives after this
    h.settle(first, QUOTE)
    assert h.model.onramp.quote is None and h.find("onramp/quote/get/value") is None
    h.settle_call("onramp_quote", {**QUOTE, "total": "250", "purchaseAmount": "0.082"})
    assert h.node("onramp/quote/get/value").p["text"] == "0.082 ETH"


def test_a_preset_quotes_at_once_and_a_currency_change_too() -> None:
    h = quoted()
    h.press("onramp/preset/500")
    assert h.pending_calls("onramp_quote")[-1].args_data["amount"] == "500"
    h.press("onramp/payment/EUR")
    assert h.pending_calls("onramp_quote")[-1].args_data["payment_currency"] == "EUR"


def test_the_amount_stays_within_the_card_limits_of_the_payment_currency() -> None:
    h = quoted()
    h.press("onramp/provider/coinbase")
    for amount in ("5", "7500.01"):
        h.intent("onramp/amount", "change", {"value": amount})
        h.expect(text="Enter an amount between 10.00 and 7,500.00 USD")
        assert h.node("onramp/continue").p["disabled"] is True
        assert h.timer_due("onramp-quote") is None


def test_continue_needs_a_provider() -> None:
    h = quoted()
    assert h.node("onramp/continue").p["text"] == "Choose a provider"
    h.deliver(PressedOnrampContinue())  # the button is disabled; the rule holds for the message too
    h.expect(text="Choose a provider")
    assert h.pending_calls("onramp_url") == []


def test_continue_opens_the_providers_page_then_account_reads_the_balances_while_it_delivers() -> None:
    h = quoted()
    h.press("onramp/provider/meld")
    h.press("onramp/continue")
    (call,) = h.pending_calls("onramp_url")
    assert call.args_data == {"network": "eip155:31337", "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                         "purchase_currency": "ETH", "payment_currency": "USD", "amount": "100"}
    h.press("onramp/continue")  # pressed again while the URL is made: nothing more
    assert len(h.pending_calls("onramp_url")) == 1
    h.settle_call("onramp_url", {"url": "https://pay.example/buy?x=1"})
    effect = h.pending_effect("open_url")
    assert effect["req"] == {"url": "https://pay.example/buy?x=1", "target": "_blank"}
    h.answer("open_url", None)
    h.expect(view="Account", text="Complete the purchase in the provider's window")
    h.cmds.clear()
    h.advance(POLL_MS)
    assert h.pending_calls("balances")


def test_a_url_that_is_not_https_is_not_opened() -> None:
    h = quoted()
    h.press("onramp/provider/coinbase")
    h.press("onramp/continue")
    h.settle_call("onramp_url", {"url": "javascript:alert(1)"})
    assert not [e for e in h.pending_effects() if e["kind"] == "open_url"]
    h.expect(view="OnRamp", text="The provider gave no page to open")


def test_the_currency_payment_and_preset_choices_say_which_one_is_chosen() -> None:
    """Acceptance (accessibility): the chosen currency, payment currency and preset amount
    differed only by colour; they now carry `pressed` (aria-pressed)."""
    h = with_options()
    pressed = {n.id: n.p["pressed"] for row in ("onramp/currencies", "onramp/payments", "onramp/presets")
               for n in h.node(row).c}
    assert {k for k, v in pressed.items() if v} == {"onramp/currency/ETH", "onramp/payment/USD", "onramp/preset/100"}
    assert len(pressed) == 8


def test_each_row_of_choices_says_what_it_chooses() -> None:
    """Acceptance: 'ETH DEMO TUSD' and 'USD EUR' stood unlabelled under 'Provider'; a visitor
    could not tell which row picks the token bought and which the money paid with."""
    h = with_options()
    body = [n.id for n in h.node("onramp/body").c]
    assert body.index("onramp/currencies/label") + 1 == body.index("onramp/currencies")
    assert body.index("onramp/payments/label") + 1 == body.index("onramp/payments")
    assert h.node("onramp/currencies/label").p["text"] == "You receive"
    assert h.node("onramp/payments/label").p["text"] == "You pay"
