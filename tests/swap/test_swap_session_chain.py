"""Swaps driven through the engine session against real Hardhat nodes (issue 16 "Tests that
must exist"): the Swap view's quote is the engine's own getAmountsOut, the wallet requests it
makes land on chain exactly at the quote, an approval comes first when the allowance is short,
insufficient liquidity is refused before any wallet request, a price moved beyond slippage
shows a readable error, and a dropped socket never makes a second swap."""

from __future__ import annotations

from decimal import Decimal

import pytest

from modalcore_dev.devchain.contracts import deploy_contract
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.chains.catalog import Token
from modalcore_dev.swap_markets import dev_markets
from modalcore.services.backend.swap.uniswap_v2 import UniswapV2Market

from .chain_harness import ChainHarness

pytestmark = pytest.mark.chain
ETH = 10**18


def test_the_engine_finds_each_dev_chains_market_from_the_deployment(devchains: ChainsInfo) -> None:
    markets = dev_markets()
    for chain_id in devchains.chain_ids:
        assert markets[chain_id] == UniswapV2Market.from_deployment(devchains.chain(chain_id))


def fee_of(h: ChainHarness, tx_hash: str) -> int:
    receipt = h.rpc("eth_getTransactionReceipt", [tx_hash])
    return int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)


def quoted_eth_to_demo(devchain: ChainsInfo) -> tuple[ChainHarness, str, str]:
    """A visitor (dev account 2) on the Swap view with a quote for 1 ETH to DEMO: the harness,
    the visitor's address and DEMO's."""
    user = devchain.chain(31337)["accounts"][2]
    demo = devchain.token(31337, "DEMO")["address"]
    h = ChainHarness(devchain, user)
    h.open_swap()
    h.quote("1", "native", demo)
    return h, user, demo


def test_eth_to_demo_from_the_account_view_lands_exactly_the_quoted_amount(devchain: ChainsInfo) -> None:
    h, user, demo = quoted_eth_to_demo(devchain)
    quote = h.model.swap.quote
    assert quote is not None and quote.approve is None  # ETH needs no approval
    # 1 ETH into the 50 ETH / 50,000 DEMO pool, the 0.3 % fee kept
    assert int(quote.amount_out) == ETH * 997 * 50_000 * ETH // (50 * ETH * 1000 + ETH * 997)
    assert h.node("swap/details/impact/value").p["text"] == "2.25%"
    with devchain.rpc(31337) as rpc:
        demo_before, eth_before = rpc.erc20_balance(demo, user), rpc.balance(user)
        h.press("swap/review")
        h.press("swap-preview/confirm")
        h.pump()
        assert len(h.sent) == 1
        assert rpc.erc20_balance(demo, user) - demo_before == int(quote.amount_out)
        assert eth_before - rpc.balance(user) == ETH + fee_of(h, h.sent[0])
    h.expect(view="Account", text="Swap sent")
    account = h.model.accounts.get("eip155")
    demo_row = next(t for t in account.token_balance if t.address == demo)
    assert Decimal(demo_row.quantity_numeric).scaleb(18) == demo_before + int(quote.amount_out)  # refreshed


def test_demo_to_tusd_approves_the_exact_amount_then_swaps(devchain: ChainsInfo) -> None:
    user = devchain.chain(31337)["accounts"][2]
    demo, tusd = devchain.token(31337, "DEMO")["address"], devchain.token(31337, "TUSD")["address"]
    h = ChainHarness(devchain, user)
    h.open_swap()
    h.quote("100", demo, tusd)
    quote = h.model.swap.quote
    assert quote is not None and quote.approve is not None
    with devchain.rpc(31337) as rpc:
        demo_before, tusd_before = rpc.erc20_balance(demo, user), rpc.erc20_balance(tusd, user)
        h.press("swap/review")
        assert h.node("swap-preview/confirm").p["text"] == "Approve DEMO and swap"
        h.press("swap-preview/confirm")
        h.pump()
        assert len(h.sent) == 2  # the approve, then the swap
        assert rpc.erc20_balance(tusd, user) - tusd_before == int(quote.amount_out)
        assert demo_before - rpc.erc20_balance(demo, user) == 100 * ETH
        router = devchain.chain(31337)["uniswapV2"]["router"]
        (left,) = rpc.eth_call(demo, "allowance(address,address)", [user, router], returns=["uint256"])
        assert left == 0  # the exact amount was approved and spent
    h.expect(view="Account")


def test_insufficient_liquidity_is_refused_before_any_wallet_request(devchain: ChainsInfo) -> None:
    entry = devchain.chain(31337)
    deployer, user = entry["accounts"][0], entry["accounts"][2]
    with devchain.rpc(31337) as rpc:
        lone = deploy_contract(rpc, deployer, "ERC20PresetFixedSupply",
                               ["string", "string", "uint256", "address"], ["Lone", "LONE", 10**24, user])
        nonce = rpc.nonce(user)
    h = ChainHarness(devchain, user, extra_tokens=(Token(lone, "LONE", "Lone", 18),))
    h.open_swap()
    h.quote("5", lone, devchain.token(31337, "DEMO")["address"])
    h.expect(text="Insufficient liquidity")
    assert h.node("swap/review").p["disabled"] is True
    h.press("swap/review")
    h.pump()
    assert h.view == "Swap"
    assert not [e for e in h.effects() if e["req"].get("method") == "eth_sendTransaction"]
    with devchain.rpc(31337) as rpc:
        assert rpc.nonce(user) == nonce


def test_a_price_moved_beyond_slippage_reverts_and_reads_so(devchain: ChainsInfo) -> None:
    h, user, demo = quoted_eth_to_demo(devchain)
    other = devchain.chain(31337)["accounts"][4]
    h.press("swap/review")
    mover = ChainHarness(devchain, other)  # another visitor buys DEMO first
    mover.open_swap()
    mover.quote("3", "native", demo)
    mover.press("swap/review")
    mover.press("swap-preview/confirm")
    mover.pump()
    assert len(mover.sent) == 1
    with devchain.rpc(31337) as rpc:
        before = rpc.erc20_balance(demo, user)
        h.press("swap-preview/confirm")
        h.pump()
        assert rpc.erc20_balance(demo, user) == before
    h.expect(view="Swap", text="The price moved beyond the slippage tolerance")


def test_a_socket_dropped_and_rejoined_during_a_swap_makes_one_swap(devchain: ChainsInfo) -> None:
    h, user, demo = quoted_eth_to_demo(devchain)
    with devchain.rpc(31337) as rpc:
        nonce = rpc.nonce(user)
        h.press("swap/review")
        h.hold_sends = True
        h.press("swap-preview/confirm")
        h.rejoin(last=h.server_seq)  # the same page, a new socket: the request is still its own
        h.press("swap-preview/confirm")  # pressed again meanwhile: one request at a time
        h.hold_sends = False
        h.pump()
        assert len(h.sent) == 1 and rpc.nonce(user) == nonce + 1
    h.expect(view="Account")


def test_a_reload_during_a_swap_shows_it_lost_and_sends_nothing_again(devchain: ChainsInfo) -> None:
    h, user, demo = quoted_eth_to_demo(devchain)
    with devchain.rpc(31337) as rpc:
        nonce = rpc.nonce(user)
        h.press("swap/review")
        h.hold_sends = True
        h.press("swap-preview/confirm")
        h.rejoin(last=None)  # reloaded: the page lost the wallet request
        h.hold_sends = False
        h.pump()
        assert h.sent == [] and rpc.nonce(user) == nonce
        h.expect(text=["Wallet request lost", "Try again"])
        h.press("swap-preview/lost/retry")
        h.pump()
        assert len(h.sent) == 1 and rpc.nonce(user) == nonce + 1
