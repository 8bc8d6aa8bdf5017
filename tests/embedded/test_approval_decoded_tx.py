"""A swap's approval says what it approves (the walk: a bare contract address and raw call data
under "Send transaction"): one eth_sendTransaction is decoded as the EIP-5792 calls are
(embedded/decode_calls.py): the approve reads "Approve DEMO" with the spender named as the
router the engine built the swap for, the swap "Swap" with its path and amounts in units, a
token transfer "Send TUSD"; Reject and Approve sit in a foot that stays in sight."""

from __future__ import annotations

import json
from dataclasses import replace

from eth_abi.abi import encode
from eth_utils.crypto import keccak

from modalcore.embedded.decode_calls import describe_transaction
from modalcore.server.approval import _page_body, engine_names
from modalcore.server.approval_theme import style
from modalcore.slices.embedded import EmbeddedRequest
from modalcore.slices.swap_form import SwapQuote
from modalcore.slices.theme import ThemeState

from ..swap.harness import DEMO, TUSD, on_swap

ROUTER = "0x4ed7c70F96B99c776995fB64377f0d4aB3B0e1C1"
USER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
WETH = "0x" + "77" * 20


def call(signature: str, types: list[str], values: list[object]) -> str:
    return "0x" + (keccak(text=signature)[:4] + encode(types, values)).hex()


APPROVE = call("approve(address,uint256)", ["address", "uint256"], [ROUTER, 25 * 10**18])
SWAP = call("swapExactTokensForETH(uint256,uint256,address[],address,uint256)",
            ["uint256", "uint256", "address[]", "address", "uint256"],
            [25 * 10**18, 12 * 10**15, [DEMO.address, WETH], USER, 2**40])
TRANSFER = call("transfer(address,uint256)", ["address", "uint256"], [USER, 1_500_000])


def params(to: str, data: str, value: str = "0x0") -> str:
    return json.dumps([{"from": USER, "to": to, "data": data, "value": value}])


def with_request(method: str, request_params: str):  # type: ignore[no-untyped-def]
    """A swap session whose quote holds the engine's swap transaction, asked to approve one."""
    h = on_swap()
    model = h.model
    quote = SwapQuote("k", "1", "1", None, None, (("to", ROUTER), ("data", SWAP), ("from", USER)), None)
    request = EmbeddedRequest("e1", method, request_params, "k", chain="eip155:31337")
    return replace(model, swap=replace(model.swap, quote=quote),
                   embedded=replace(model.embedded, request=request, identity="email:dora@example.com"))


def test_rule_the_swaps_approve_is_titled_with_its_token_and_names_the_router() -> None:
    model = with_request("eth_sendTransaction", params(DEMO.address, APPROVE))
    page = _page_body(model, "e1")
    assert "<h1>Approve DEMO</h1>" in page
    assert f"<dt>To</dt><dd>DEMO ({DEMO.address})</dd>" in page
    assert f"<dt>Spender</dt><dd>Uniswap V2 Router ({ROUTER})</dd>" in page
    assert "<dt>Amount</dt><dd>25000000000000000000 (25 DEMO)</dd>" in page
    assert APPROVE not in page  # no raw call data for a call the engine knows


def test_rule_the_swap_is_titled_swap_with_its_path_and_amounts() -> None:
    model = with_request("eth_sendTransaction", params(ROUTER, SWAP))
    page = _page_body(model, "e1")
    assert "<h1>Swap</h1>" in page
    assert f"<dt>To</dt><dd>Uniswap V2 Router ({ROUTER})</dd>" in page
    assert "<dt>Function</dt><dd>swapExactTokensForETH(amountIn, amountOutMin, path, to, deadline)</dd>" in page
    assert "<dt>Path</dt><dd>DEMO → " in page
    assert "<dt>Amount in</dt><dd>25000000000000000000 (25 DEMO)</dd>" in page
    assert "<dt>Amount out min</dt><dd>12000000000000000 (0.012 ETH)</dd>" in page
    assert SWAP not in page


def test_a_token_transfer_is_titled_send_with_its_token() -> None:
    title, rows = describe_transaction(params(TUSD.address, TRANSFER), with_request("x", "[]").networks.get("eip155:31337"))
    assert title == "Send TUSD"
    assert ("Amount", "1500000 (1.5 TUSD)") in rows


def test_an_unknown_call_keeps_its_selector_and_data() -> None:
    title, rows = describe_transaction(params(ROUTER, "0xdeadbeef00"), None)
    assert title == "Send transaction"
    assert ("Function selector", "0xdeadbeef") in rows and ("Data", "0xdeadbeef00") in rows


def test_a_malformed_transaction_is_said_so() -> None:
    assert describe_transaction("{", None) == ("Send transaction", [("Request", "malformed")])
    assert describe_transaction(json.dumps([{"to": "nope", "value": "zz"}]), None)[1][1:] == [
        ("To", "nope"), ("Value", "zz")]


def test_without_a_swap_nothing_is_named_a_router() -> None:
    model = with_request("eth_sendTransaction", params(DEMO.address, APPROVE))
    assert engine_names(replace(model, swap=replace(model.swap, quote=None, pending=None))) == {}


def test_rule_reject_and_approve_stay_in_sight_at_the_frames_foot() -> None:
    page = _page_body(with_request("eth_sendTransaction", params(DEMO.address, APPROVE)), "e1")
    assert page.index("</main><div class=actions>") < page.index("id=approve")
    css = style(ThemeState())
    foot = css.split(".actions{")[1].split("}")[0]
    assert "position:sticky" in foot and "bottom:0" in foot
