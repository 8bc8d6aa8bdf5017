"""The session doctor on Swap (issue 44 item 2): a swap the wallet declines is swap/request_rejected
and the form's error offers the support code; a quote the chain could not give is
swap/chain_unreachable."""

from __future__ import annotations

from modalcore.slices.doctor import Cause
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS

from ..swap.harness import on_swap, typed
from ..swap.test_swap_rules import to_preview


def test_a_swap_the_wallet_declines_is_request_rejected_and_offers_the_support_code() -> None:
    h = to_preview()
    h.press("swap-preview/confirm")
    h.answer("eth_sendTransaction", code=4001, message="User rejected")
    found = h.model.doctor.last
    assert found is not None and (found.flow, found.cause) == ("swap", Cause.REQUEST_REJECTED)
    h.expect(view="Swap", text="Copy support code")


def test_a_quote_the_chain_could_not_give_is_chain_unreachable() -> None:
    h = on_swap()
    typed(h, "1")
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", ok=False, error="connection refused", failure="upstream")
    found = h.model.doctor.last
    assert found is not None and (found.flow, found.cause) == ("swap", Cause.CHAIN_UNREACHABLE)
