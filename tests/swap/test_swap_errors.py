"""Node revert reasons of a swap map to readable messages (behaviour.md §8: node messages for reverts
map to readable ones), before the generic 'The transaction was reverted'."""

from __future__ import annotations

import pytest

from modalcore.rules.rpc_errors import classify

HARDHAT = "Error: VM Exception while processing transaction: reverted with reason string '{}'"


@pytest.mark.parametrize(("reason", "readable"), [
    ("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT", "The price moved beyond the slippage tolerance"),
    ("UniswapV2Router: EXCESSIVE_INPUT_AMOUNT", "The price moved beyond the slippage tolerance"),
    ("UniswapV2Router: EXPIRED", "The swap deadline passed before it was mined"),
    ("UniswapV2Library: INSUFFICIENT_LIQUIDITY", "Insufficient liquidity"),
    ("TransferHelper: TRANSFER_FROM_FAILED", "The token transfer failed: check the allowance and the balance"),
    ("Ownable: caller is not the owner", "The transaction was reverted"),
])
def test_swap_revert_reasons_are_readable(reason: str, readable: str) -> None:
    assert classify(-32603, HARDHAT.format(reason)).message == readable
    assert classify(3, f"execution reverted: {reason}").message == readable


def test_a_user_rejection_stays_a_rejection() -> None:
    error = classify(4001, "User rejected the request")
    assert error.user_rejected and error.message == "User rejected the request"
