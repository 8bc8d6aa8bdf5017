"""The local Uniswap V2 market and its quote provider, against real Hardhat nodes: swaps land
exactly at the quote, a price moved beyond slippage reverts with a readable reason, and
insufficient liquidity is refused before any transaction."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from decimal import Decimal

import httpx
import pytest

from modalcore_dev.devchain import Rpc, RpcError, TransactionFailed
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.rules.rpc_errors import classify
from modalcore.services.domain.swap_types import INSUFFICIENT_LIQUIDITY, InsufficientLiquidity, NATIVE, SwapError, TxRequest
from modalcore.services.backend.swap.uniswap_v2 import UniswapV2Market, UniswapV2Provider

pytestmark = pytest.mark.chain
ETH = 10**18


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def provider(info: ChainsInfo, http: httpx.AsyncClient, chain_id: int = 31337) -> UniswapV2Provider:
    return UniswapV2Provider(http, info.rpc_urls[chain_id],
                             UniswapV2Market.from_deployment(info.chain(chain_id)))


def send(rpc: Rpc, tx: TxRequest) -> dict[str, object]:
    """The wallet's part: eth_sendTransaction from the node's unlocked account, mined."""
    return rpc.transact(dict(tx.to_params()))


def fee(receipt: dict[str, object]) -> int:
    return int(str(receipt["gasUsed"]), 16) * int(str(receipt["effectiveGasPrice"]), 16)


def deadline(rpc: Rpc) -> int:
    # mine first: an idle chain's latest block can be older than the deadline window (a long
    # test run), and the next block would take the wall-clock time
    rpc.call("evm_mine")
    block = rpc.call("eth_getBlockByNumber", ["latest", False])
    return max(int(block["timestamp"], 16), int(time.time())) + 1200


def test_each_chain_has_the_market_with_its_pools_funded(devchains: ChainsInfo) -> None:
    for chain_id in devchains.chain_ids:
        market = devchains.chain(chain_id)["uniswapV2"]
        with devchains.rpc(chain_id) as rpc:
            for pair in market["pairs"]:
                reserve0, reserve1, _ = rpc.eth_call(pair["address"], "getReserves()",
                                                     returns=["uint112", "uint112", "uint32"])
                by_address = {pair["token0"]: reserve0, pair["token1"]: reserve1}
                for symbol, amount in pair["liquidity"].items():
                    address = market["weth"] if symbol == "ETH" else devchains.token(chain_id, symbol)["address"]
                    assert by_address[address] == int(amount)
    assert sorted(p["symbols"] for p in devchains.chain(31337)["uniswapV2"]["pairs"]) == [
        ["DEMO", "TUSD"], ["ETH", "DEMO"], ["ETH", "TUSD"]]


async def test_eth_to_demo_lands_exactly_at_the_quote(devchain: ChainsInfo, http: httpx.AsyncClient) -> None:
    user = devchain.chain(31337)["accounts"][3]
    demo = devchain.token(31337, "DEMO")["address"]
    uniswap = provider(devchain, http)
    quote = await uniswap.quote(NATIVE, demo, ETH)
    # 1 ETH into the 50 ETH / 50,000 DEMO pool: getAmountOut with the 0.3% fee
    assert quote.amount_out == ETH * 997 * 50_000 * 10**18 // (50 * ETH * 1000 + ETH * 997)
    assert quote.min_out == quote.amount_out * 99 // 100  # default slippage 1 %
    assert quote.price_impact == Decimal("2.25")  # 1 − 0.997 × 50 / 50.997, the fee included
    assert await uniswap.allowance(NATIVE, user) >= ETH  # nothing to approve for ETH
    with devchain.rpc(31337) as rpc:
        eth_before, demo_before = rpc.balance(user), rpc.erc20_balance(demo, user)
        tx = await uniswap.swap_tx(quote, user, deadline(rpc))
        assert tx.data.startswith("0x7ff36ab5")  # swapExactETHForTokens
        receipt = send(rpc, tx)
        assert rpc.erc20_balance(demo, user) == demo_before + quote.amount_out
        assert rpc.balance(user) == eth_before - ETH - fee(receipt)


async def test_demo_to_tusd_approves_then_swaps_exactly_at_the_quote(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    user = devchain.chain(31337)["accounts"][1]
    demo = devchain.token(31337, "DEMO")["address"]
    tusd = devchain.token(31337, "TUSD")["address"]
    uniswap = provider(devchain, http)
    amount = 250 * 10**18
    quote = await uniswap.quote(demo, tusd, amount)
    assert quote.path == (demo, tusd) and quote.spender == devchain.chain(31337)["uniswapV2"]["router"]
    assert await uniswap.allowance(demo, user) == 0  # the deployment leaves no allowance behind
    with devchain.rpc(31337) as rpc:
        demo_before, tusd_before = rpc.erc20_balance(demo, user), rpc.erc20_balance(tusd, user)
        send(rpc, await uniswap.approve_tx(quote, user))
        assert await uniswap.allowance(demo, user) == amount  # exactly the swap's amount
        tx = await uniswap.swap_tx(quote, user, deadline(rpc))
        assert tx.data.startswith("0x38ed1739") and tx.value == 0  # swapExactTokensForTokens
        send(rpc, tx)
        assert rpc.erc20_balance(demo, user) == demo_before - amount
        assert rpc.erc20_balance(tusd, user) == tusd_before + quote.amount_out
    assert await uniswap.allowance(demo, user) == 0


async def test_tusd_to_eth_uses_the_eth_router_function(devchain: ChainsInfo, http: httpx.AsyncClient) -> None:
    user = devchain.chain(31338)["accounts"][2]
    tusd = devchain.token(31338, "TUSD")["address"]
    uniswap = provider(devchain, http, 31338)
    quote = await uniswap.quote(tusd, NATIVE, 1_000 * 10**6)
    with devchain.rpc(31338) as rpc:
        eth_before = rpc.balance(user)
        approve = send(rpc, await uniswap.approve_tx(quote, user))
        tx = await uniswap.swap_tx(quote, user, deadline(rpc))
        assert tx.data.startswith("0x18cbafe5")  # swapExactTokensForETH
        swap = send(rpc, tx)
        assert rpc.balance(user) == eth_before + quote.amount_out - fee(approve) - fee(swap)


async def test_a_price_moved_beyond_slippage_reverts_with_a_readable_reason(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    entry = devchain.chain(31337)
    user, other = entry["accounts"][3], entry["accounts"][4]
    demo = devchain.token(31337, "DEMO")["address"]
    uniswap = provider(devchain, http)
    quote = await uniswap.quote(NATIVE, demo, ETH)  # slippage 1 %
    with devchain.rpc(31337) as rpc:
        tx = await uniswap.swap_tx(quote, user, deadline(rpc))
        # another account buys DEMO first: the price moves by more than 1 %
        moved = await uniswap.quote(NATIVE, demo, 2 * ETH)
        send(rpc, await uniswap.swap_tx(moved, other, deadline(rpc)))
        assert (await uniswap.quote(NATIVE, demo, ETH)).amount_out < quote.min_out
        demo_before = rpc.erc20_balance(demo, user)
        with pytest.raises((RpcError, TransactionFailed)) as failure:
            send(rpc, tx)
        assert rpc.erc20_balance(demo, user) == demo_before
    assert isinstance(failure.value, RpcError), "Hardhat reports the revert on eth_sendTransaction"
    assert "INSUFFICIENT_OUTPUT_AMOUNT" in failure.value.message
    error = classify(failure.value.code, failure.value.message)
    assert error.message == "The price moved beyond the slippage tolerance"


async def test_a_swap_past_its_deadline_reverts_with_a_readable_reason(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    user = devchain.chain(31337)["accounts"][3]
    demo = devchain.token(31337, "DEMO")["address"]
    uniswap = provider(devchain, http)
    quote = await uniswap.quote(NATIVE, demo, ETH)
    with devchain.rpc(31337) as rpc:
        tx = await uniswap.swap_tx(quote, user, deadline(rpc) - 1200)  # the latest block's time
        rpc.call("evm_increaseTime", [60])
        with pytest.raises(RpcError) as failure:
            send(rpc, tx)
    assert classify(failure.value.code, failure.value.message).message == (
        "The swap deadline passed before it was mined")


async def test_a_move_within_slippage_still_swaps(devchain: ChainsInfo, http: httpx.AsyncClient) -> None:
    entry = devchain.chain(31337)
    user, other = entry["accounts"][3], entry["accounts"][4]
    demo = devchain.token(31337, "DEMO")["address"]
    uniswap = provider(devchain, http)
    quote = await uniswap.quote(NATIVE, demo, ETH, slippage=Decimal(5))
    with devchain.rpc(31337) as rpc:
        tx = await uniswap.swap_tx(quote, user, deadline(rpc))
        send(rpc, await uniswap.swap_tx(await uniswap.quote(NATIVE, demo, ETH), other, deadline(rpc)))
        before = rpc.erc20_balance(demo, user)
        send(rpc, tx)
        received = rpc.erc20_balance(demo, user) - before
    assert quote.min_out <= received < quote.amount_out


async def test_insufficient_liquidity_is_refused_before_any_transaction(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    from modalcore_dev.devchain.contracts import deploy_contract

    entry = devchain.chain(31337)
    deployer, user = entry["accounts"][0], entry["accounts"][1]
    demo = devchain.token(31337, "DEMO")["address"]
    uniswap = provider(devchain, http)
    with devchain.rpc(31337) as rpc:
        lone = deploy_contract(rpc, deployer, "ERC20PresetFixedSupply",
                               ["string", "string", "uint256", "address"], ["Lone", "LONE", 10**24, deployer])
        nonce = rpc.nonce(user)
        # no pool at all
        with pytest.raises(InsufficientLiquidity) as no_pool:
            await uniswap.quote(demo, lone, 10**18)
        assert str(no_pool.value) == INSUFFICIENT_LIQUIDITY
        # a pool without liquidity (the router's getAmountsOut reverts)
        rpc.send_call(deployer, entry["uniswapV2"]["factory"], "createPair(address,address)", [demo, lone])
        with pytest.raises(InsufficientLiquidity):
            await uniswap.quote(demo, lone, 10**18)
        # an amount whose output rounds to nothing
        tusd = devchain.token(31337, "TUSD")["address"]
        with pytest.raises(InsufficientLiquidity):
            await uniswap.quote(demo, tusd, 1)
        assert rpc.nonce(user) == nonce  # nothing was sent


async def test_bad_requests_are_typed_errors(devchains: ChainsInfo, http: httpx.AsyncClient) -> None:
    demo = devchains.token(31337, "DEMO")["address"]
    uniswap = provider(devchains, http)
    with pytest.raises(SwapError, match="^Choose two different tokens$"):
        await uniswap.quote(demo, demo, 1)
    with pytest.raises(SwapError, match="^Enter an amount greater than 0$"):
        await uniswap.quote(NATIVE, demo, 0)
    with pytest.raises(SwapError, match="^The native currency needs no approval$"):
        await uniswap.approve_tx(await uniswap.quote(NATIVE, demo, 10**15), demo)
