"""Swap view rules (issue 16 "The Swap view", "Approve then swap"; behaviour.md §2 view Swap, §4
transaction stack, §8 'Network not supported for Swaps', §9 slippage default 1), driven through
the Harness on a fake clock: intents in, the rendered tree and the commands out."""

from __future__ import annotations

from dataclasses import replace

from modalcore.core.cmds import Call, CallSettled
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS, QUOTE_TIMER

from .harness import DEMO, ETH, HASH, HASH2, SOLANA, TUSD, connected, on_swap, quote_answer, typed


def quoted(amount: str = "1", to: str = DEMO.address, **answer: object):  # type: ignore[no-untyped-def]
    h = on_swap()
    typed(h, amount, to)
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", quote_answer(**answer))  # type: ignore[arg-type]
    return h


def test_the_account_swap_button_opens_the_swap_view() -> None:
    h = connected()
    assert h.node("account/feature/swaps").p["text"] == "Swap"
    h.press("account/feature/swaps")
    h.expect(view="Swap", text=["Swap", "ETH", "Select a token", "Slippage"])


def test_the_pickers_list_the_visitors_tokens_with_balances_then_the_networks_tokens() -> None:
    h = on_swap(tusd=0)
    h.press("swap/to/token")
    held = [n.id for n in h.node("swap/pick/to/held").c]
    popular = [n.id for n in h.node("swap/pick/to/popular").c]
    assert held == ["swap/pick/to/native", f"swap/pick/to/{DEMO.address}"]
    assert popular == [f"swap/pick/to/{TUSD.address}"]
    assert h.node(f"swap/pick/to/{DEMO.address}").p["trailing"] == "5,000.000"
    h.press(f"swap/pick/to/{DEMO.address}")
    assert h.find("swap/pick/to") is None
    assert h.node("swap/to/token").p["title"] == "DEMO"
    assert h.node("swap/from/token").p["subtitle"] == "Balance: 10.000 ETH"


def test_the_quote_waits_for_a_pause_in_typing_then_asks_the_engine_service() -> None:
    h = on_swap()
    typed(h, "0.5")
    typed(h, "1")
    assert h.pending_calls("swap_quote") == []  # debounced: nothing while typing
    assert h.timer_due(QUOTE_TIMER) == h.now + QUOTE_DEBOUNCE_MS
    assert h.node("swap/to/amount").t == "skeleton"
    h.advance(QUOTE_DEBOUNCE_MS - 1)
    assert h.pending_calls("swap_quote") == []
    h.advance(1)
    (call,) = h.pending_calls("swap_quote")
    assert isinstance(call, Call)
    assert call.args_data == {"network": "eip155:31337", "rpc_url": "http://127.0.0.1:8545", "from_token": "native",
                         "to_token": DEMO.address, "amount": str(ETH), "slippage": "1",
                         "user": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}


def test_the_quote_shows_amount_price_impact_minimum_received_and_fee_in_fiat() -> None:
    h = quoted()
    assert h.node("swap/to/amount").p["text"] == "975"
    assert h.node("swap/to/fiat").p["text"] == "$1,950.00"  # DEMO priced 2.0
    assert h.node("swap/from/fiat").p["text"] == "$3,000.00"
    assert h.node("swap/details/impact/value").p["text"] == "2.25%"
    assert h.node("swap/details/min/label").p["text"] == "Minimum received (1% slippage)"
    assert h.node("swap/details/min/value").p["text"] == "965.25 DEMO"
    assert h.node("swap/details/fee/value").p["text"] == "~$0.45"  # 150,000 gwei at $3,000
    assert h.node("swap/details/rate/value").p["text"] == "1 ETH = 975 DEMO"
    assert h.node("swap/review").p["text"] == "Review swap"
    assert h.node("swap/review").p.get("disabled") is None


def test_the_fee_is_shown_in_the_native_currency_when_it_has_no_price() -> None:
    from .harness import local_networks
    h = on_swap(networks=local_networks(native_price=None))
    typed(h, "1")
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", quote_answer())
    assert h.node("swap/details/fee/value").p["text"] == "~0.00015 ETH"


def test_a_quote_for_a_form_that_changed_since_is_dropped() -> None:
    h = on_swap()
    typed(h, "1")
    h.advance(QUOTE_DEBOUNCE_MS)
    typed(h, "2")  # the first quote's answer arrives after this
    first = h.pending_calls("swap_quote")[0]
    h.cmds.remove(first)
    h.deliver(CallSettled(first.to, ok=True, result=quote_answer()))
    assert h.model.swap.quote is None
    assert h.node("swap/to/amount").t == "skeleton"


def test_slippage_defaults_to_1_and_a_new_setting_requotes_at_once() -> None:
    h = quoted()
    assert h.node("swap/slippage/1").p["variant"] == "main"
    h.press("swap/slippage/3")
    (call,) = h.pending_calls("swap_quote")
    assert call.args_data["slippage"] == "3"
    h.settle_call("swap_quote", quote_answer())
    assert h.node("swap/details/min/label").p["text"] == "Minimum received (3% slippage)"


def test_insufficient_balance_is_stated_before_any_wallet_request() -> None:
    h = on_swap()
    typed(h, "10.5")
    h.expect(text="Insufficient balance")
    assert h.node("swap/review").p["disabled"] is True
    assert h.node("swap/amount").p["invalid"] is True
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", quote_answer(amount_in=10_500 * ETH // 1000))
    h.press("swap/review")
    assert h.view == "Swap"
    assert h.node("swap/error").p["text"] == "Insufficient balance"
    assert h.effects()[-1]["req"]["method"] != "eth_sendTransaction"


def test_insufficient_liquidity_is_stated_before_any_wallet_request() -> None:
    h = on_swap()
    typed(h, "1")
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", ok=False, error="Insufficient liquidity")
    assert h.node("swap/review").p["text"] == "Insufficient liquidity"
    assert h.node("swap/review").p["disabled"] is True
    h.press("swap/review")
    assert h.view == "Swap"
    assert not any(e["req"].get("method") == "eth_sendTransaction" for e in h.effects())


def test_max_takes_the_whole_token_balance_and_keeps_the_fee_for_the_native_one() -> None:
    h = on_swap()
    typed(h, "", to=DEMO.address, source=TUSD.address)
    h.press("swap/max")
    assert h.model.swap.amount == "1234.56789"
    h.press("swap/flip")  # now ETH → TUSD
    h.press("swap/from/token")
    h.press("swap/pick/from/native")
    h.press("swap/max")
    assert h.model.swap.amount == "9.99"  # 10 ETH less 0.01 until a quote knows the fee


def test_flip_swaps_the_tokens_and_takes_the_quoted_output_as_the_new_amount() -> None:
    h = quoted()
    h.press("swap/flip")
    assert (h.model.swap.from_token, h.model.swap.to_token) == (DEMO.address, "native")
    assert h.model.swap.amount == "975"
    (call,) = h.pending_calls("swap_quote")
    assert call.args_data["from_token"] == DEMO.address and call.args_data["to_token"] == "native"


def test_picking_the_other_sides_token_flips() -> None:
    h = quoted()
    h.press("swap/to/token")
    h.press("swap/pick/to/native")
    assert (h.model.swap.from_token, h.model.swap.to_token) == (DEMO.address, "native")


def test_swaps_are_refused_on_a_network_not_supported_for_swaps() -> None:
    h = on_swap()
    h.apply(lambda m: (replace(m, networks=replace(m.networks, active=SOLANA)), []))
    h.expect(view="Swap", text="Network not supported for Swaps", no_node="swap/review")


def test_a_quote_failure_shows_its_reason() -> None:
    h = on_swap()
    typed(h, "1")
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", ok=False, error="Network not supported for Swaps")
    h.expect(text="Network not supported for Swaps")


# ----- approve, then swap


def to_preview(**answer: object):  # type: ignore[no-untyped-def]
    h = quoted(**answer)  # type: ignore[arg-type]
    h.press("swap/review")
    assert h.view == "SwapPreview"
    return h


def test_review_opens_the_preview_with_what_is_paid_and_received() -> None:
    h = to_preview()
    assert h.node("swap-preview/pay").p["trailing"] == "1 ETH"
    assert h.node("swap-preview/receive").p["trailing"] == "975 DEMO"
    assert h.node("swap-preview/confirm").p["text"] == "Swap"


def test_eth_in_needs_no_approval_one_wallet_request_the_quoted_swap() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    effect = h.pending_effect("eth_sendTransaction")
    assert effect["req"]["params"] == [quote_answer()["swap"]]
    assert h.model.router.tx_stack[-1].view == "Account"
    h.press("swap-preview/confirm")  # one pending request at a time
    assert len([e for e in h.pending_effects() if e["req"].get("method") == "eth_sendTransaction"]) == 1


def test_success_returns_to_account_and_refreshes_balances_and_activity() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", HASH)
    h.expect(view="Account", text="Swap sent")
    assert h.history == ["Account"]
    assert h.model.router.tx_stack == ()
    assert h.pending_calls("balances")
    assert h.model.swap.pending is None and h.model.swap.amount == ""


def test_a_short_allowance_approves_the_exact_amount_first_then_swaps_once_mined() -> None:
    h = to_preview(approve=True)
    assert h.node("swap-preview/confirm").p["text"] == "Approve ETH and swap"
    h.press("swap-preview/confirm")
    approve = h.pending_effect("eth_sendTransaction")
    assert approve["req"]["params"] == [quote_answer(approve=True)["approve"]]
    h.answer("eth_sendTransaction", HASH)
    h.expect(text="Waiting for the approval…")
    (receipt,) = h.pending_calls("tx_receipt")
    assert receipt.args_data == {"rpc_url": "http://127.0.0.1:8545", "hash": HASH}
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "eth_sendTransaction"]
    h.settle_call("tx_receipt", {"status": "confirmed", "block": "12"})
    swap = h.pending_effect("eth_sendTransaction")
    assert swap["req"]["params"] == [quote_answer(approve=True)["swap"]]
    h.answer("eth_sendTransaction", HASH2)
    h.expect(view="Account", text="Swap sent")


def test_a_failed_approval_goes_back_to_the_form_with_the_reason() -> None:
    h = to_preview(approve=True)
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", HASH)
    h.settle_call("tx_receipt", {"status": "failed", "block": "12"})
    h.expect(view="Swap", text="The approval failed on chain")
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "eth_sendTransaction"]


def test_declining_in_the_wallet_goes_back_to_the_form_and_says_so() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", code=4001, message="User rejected")
    h.expect(view="Swap", text="Transaction declined in the wallet")
    assert h.model.router.tx_stack == () and h.model.swap.pending is None


def test_a_revert_shows_a_readable_reason() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", code=-32603,
             message="VM Exception: reverted with reason string 'UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT'")
    h.expect(view="Swap", text="The price moved beyond the slippage tolerance")


def test_a_request_lost_to_a_reload_is_shown_lost_and_never_sent_again() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    effect = h.pending_effect("eth_sendTransaction")
    h.rejoin(last=None)
    assert effect["eid"] not in h.session.effects
    h.expect(view="SwapPreview", text=["Wallet request lost", "Try again"])
    sends = [e for e in h.effects() if e["req"].get("method") == "eth_sendTransaction"]
    assert len(sends) == 1
    h.effect_result(effect["eid"], result=HASH)  # a late answer to the lost request changes nothing
    assert h.model.swap.pending is not None and h.model.swap.pending.status == "lost"
    h.press("swap-preview/lost/retry")
    sends = [e for e in h.effects() if e["req"].get("method") == "eth_sendTransaction"]
    assert len(sends) == 2  # only because the visitor pressed Try again
    h.answer("eth_sendTransaction", HASH)
    h.expect(view="Account")


def test_a_lost_request_can_be_discarded() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    h.rejoin(last=None)
    h.press("swap-preview/lost/discard")
    assert h.model.swap.pending is None
    assert h.node("swap-preview/confirm").p.get("disabled") is None


def test_a_new_network_starts_a_new_form() -> None:
    h = quoted()
    h.apply(lambda m: (replace(m, networks=replace(m.networks, active="eip155:31338")), []))
    assert h.model.swap.amount == "" and h.model.swap.quote is None


def test_a_swap_lost_after_its_approval_asks_only_the_swap_again() -> None:
    h = to_preview(approve=True)
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", HASH)
    h.settle_call("tx_receipt", {"status": "confirmed", "block": "12"})
    h.rejoin(last=None)
    h.expect(text="Wallet request lost")
    h.press("swap-preview/lost/retry")
    retried = h.pending_effect("eth_sendTransaction")
    assert retried["req"]["params"] == [quote_answer(approve=True)["swap"]]  # not the approve again
    h.answer("eth_sendTransaction", HASH2)
    h.expect(view="Account", text="Swap sent")


def test_a_swap_waiting_in_the_wallet_survives_persistence_exactly() -> None:
    import msgpack

    from modalcore.slices.model import model_from_data, model_to_data

    h = to_preview(approve=True)
    h.press("swap-preview/confirm")
    data = msgpack.unpackb(msgpack.packb(model_to_data(h.model)), strict_map_key=False)
    assert model_from_data(data).swap == h.model.swap


def test_while_the_balances_load_the_form_says_so_rather_than_insufficient_balance() -> None:
    from .harness import harness

    h = harness()
    h.connect_wallet()  # the balances call is still pending
    if not h.model.modal.open:
        h.host("open")
    h.press("account/feature/swaps")
    typed(h, "1")
    assert h.node("swap/review").p["text"] == "Reading your balance…"
    h.settle_call("balances", {"native": 10 * ETH, "tokens": {}})
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", quote_answer())
    assert h.node("swap/review").p["text"] == "Review swap"


def test_the_swap_view_asks_for_the_networks_swap_token_list_and_offers_it_as_popular() -> None:
    h = on_swap()
    (call,) = h.pending_calls("swap_tokens")
    assert call.args_data == {"network": "eip155:31337"}
    usdc = {"address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "symbol": "USDC", "name": "USD Coin",
            "decimals": 6, "icon": "https://icons.example/usdc.png"}
    h.settle_call("swap_tokens", {"tokens": [usdc, {"address": DEMO.address, "symbol": "DEMO", "name": "Demo",
                                                    "decimals": 18}]})
    h.press("swap/to/token")
    popular = [n.id for n in h.node("swap/pick/to/popular").c]
    assert popular == [f"swap/pick/to/{usdc['address']}"]  # DEMO is configured already: listed once
    h.press(f"swap/pick/to/{usdc['address']}")
    assert h.node("swap/to/token").p["title"] == "USDC"
    h.press("header/back")
    h.press("account/feature/swaps")
    assert h.pending_calls("swap_tokens") == []  # asked once per network


def test_a_network_without_swaps_says_so_as_soon_as_the_view_opens() -> None:
    h = on_swap()
    h.settle_call("swap_tokens", {"tokens": [], "supported": False})
    h.expect(view="Swap", text="Network not supported for Swaps", no_node=["swap/amount", "swap/review"])


def test_a_failed_token_list_says_nothing_of_the_network_whatever_its_text() -> None:
    """Issue 30: the network's verdict is the typed `supported`, never the failure's text: a
    failed list (even one reading 'Network not supported for Swaps') leaves the form usable."""
    h = on_swap()
    h.settle_call("swap_tokens", ok=False, error="Network not supported for Swaps")
    h.expect(view="Swap", node=["swap/amount", "swap/review"])
    assert h.model.swap.not_supported is False


def test_an_approval_not_mined_yet_is_awaited_again_then_given_up_with_a_reason() -> None:
    from modalcore.slices.swap_tx import MAX_RECEIPT_ASKS

    h = to_preview(approve=True)
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", HASH)
    for _ in range(MAX_RECEIPT_ASKS):
        h.settle_call("tx_receipt", {"status": "pending", "block": ""})
        (again,) = h.pending_calls("tx_receipt")
        assert again.args_data["hash"] == HASH
    h.settle_call("tx_receipt", {"status": "pending", "block": ""})
    h.expect(view="Swap", text="The approval was not mined in time")
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "eth_sendTransaction"]


def test_the_slippage_choices_say_which_one_is_chosen_to_assistive_tech() -> None:
    """Acceptance (accessibility): the chosen slippage differed only by colour; the choices now
    carry `pressed` (aria-pressed), true on the chosen one only."""
    h = quoted()
    assert [h.node(f"swap/slippage/{v}").p["pressed"] for v in ("0.5", "1", "2", "3")] == [False, True, False, False]
    h.press("swap/slippage/3")
    assert [h.node(f"swap/slippage/{v}").p["pressed"] for v in ("0.5", "1", "2", "3")] == [False, False, False, True]


def test_the_review_shortens_a_long_amount_paid_so_you_pay_stays_readable() -> None:
    """Acceptance: Max on ETH typed 22 digits; on the review 'You pay' was squeezed to 'Y.' beside
    them. Past 6 decimals the amount is floored to 6 and marked '~' (the swap still uses it all)."""
    h = quoted("0.999957970800386842")
    h.press("swap/review")
    assert h.node("swap-preview/pay").p["trailing"] == "~0.999957 ETH"
    assert h.model.swap.amount == "0.999957970800386842"
