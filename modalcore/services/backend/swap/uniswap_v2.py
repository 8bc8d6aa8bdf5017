"""The local Uniswap V2 quote provider: routes over a factory's pairs (direct, else through
WETH), quotes with the router's `getAmountsOut` (eth_call), states price impact from the pairs'
reserves and the minimum received after slippage, and builds the approve and swap calldata.
ETH on either side uses the router's ETH functions (swapExactETHForTokens,
swapExactTokensForETH); token to token uses swapExactTokensForTokens."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
from eth_abi.abi import decode
from eth_utils.address import to_checksum_address

from ..abi import call_data
from ..jsonrpc import RpcCallError, batch
from .amounts import min_received, price_impact
from ...domain.swap_types import (
    DEFAULT_SLIPPAGE,
    NATIVE,
    InsufficientLiquidity,
    Quote,
    SwapError,
    TxRequest,
)

MAX_UINT256 = 2**256 - 1
SAME_TOKEN = "Choose two different tokens"
NO_AMOUNT = "Enter an amount greater than 0"
NO_APPROVAL = "The native currency needs no approval"


@dataclass(frozen=True)
class UniswapV2Market:
    """Where a chain's Uniswap V2 contracts are."""

    chain_id: int
    router: str
    factory: str
    weth: str

    @classmethod
    def from_deployment(cls, entry: Mapping[str, Any]) -> UniswapV2Market:
        """From a dev-chain deployment entry (fixtures/chain/deployment.json)."""
        market = entry["uniswapV2"]
        return cls(int(entry["chainId"]), str(market["router"]), str(market["factory"]),
                   str(market["weth"]))


def _eth_call(to: str, signature: str, args: list[object]) -> tuple[str, list[Any]]:
    return "eth_call", [{"to": to, "data": call_data(signature, args)}, "latest"]


def _decode(types: list[str], result: object) -> tuple[Any, ...]:
    return tuple(decode(types, bytes.fromhex(str(result).removeprefix("0x"))))


class UniswapV2Provider:
    def __init__(self, http: httpx.AsyncClient, rpc_url: str, market: UniswapV2Market) -> None:
        self.http = http
        self.rpc_url = rpc_url
        self.market = market

    def _wrap(self, token: str) -> str:
        return self.market.weth if token == NATIVE else to_checksum_address(token)

    async def _route(self, token_in: str, token_out: str) -> tuple[list[str], list[str]]:
        """(path, pairs): the direct pair, else through WETH; InsufficientLiquidity if none."""
        weth = self.market.weth
        get_pair = "getPair(address,address)"
        calls = [_eth_call(self.market.factory, get_pair, [token_in, token_out])]
        hop = weth.lower() not in (token_in.lower(), token_out.lower())
        if hop:
            calls += [_eth_call(self.market.factory, get_pair, [token_in, weth]),
                      _eth_call(self.market.factory, get_pair, [weth, token_out])]
        pairs = [str(_decode(["address"], r)[0]) for r in await batch(self.http, self.rpc_url, calls)]
        if int(pairs[0], 16):
            return [token_in, token_out], [pairs[0]]
        if hop and int(pairs[1], 16) and int(pairs[2], 16):
            return [token_in, weth, token_out], pairs[1:]
        raise InsufficientLiquidity("no pool for this pair")

    async def quote(self, from_token: str, to_token: str, amount_in: int, *,
                    slippage: Decimal = DEFAULT_SLIPPAGE, user: str = "") -> Quote:
        token_in, token_out = self._wrap(from_token), self._wrap(to_token)
        if token_in.lower() == token_out.lower():
            raise SwapError(SAME_TOKEN)
        if amount_in <= 0:
            raise SwapError(NO_AMOUNT)
        path, pairs = await self._route(token_in, token_out)
        calls = [_eth_call(pair, "getReserves()", []) for pair in pairs]
        calls.append(_eth_call(self.market.router, "getAmountsOut(uint256,address[])", [amount_in, path]))
        try:
            results = await batch(self.http, self.rpc_url, calls)
        except RpcCallError as error:
            if "INSUFFICIENT_LIQUIDITY" in error.message.upper():
                raise InsufficientLiquidity(error.message) from None
            raise
        reserves: list[tuple[int, int]] = []
        for hop, raw in enumerate(results[:-1]):
            reserve0, reserve1, _ = _decode(["uint112", "uint112", "uint32"], raw)
            in_is_token0 = int(path[hop], 16) < int(path[hop + 1], 16)
            reserves.append((reserve0, reserve1) if in_is_token0 else (reserve1, reserve0))
        if any(r_in == 0 or r_out == 0 for r_in, r_out in reserves):
            raise InsufficientLiquidity("empty pool")
        (amounts,) = _decode(["uint256[]"], results[-1])
        out = int(amounts[-1])
        if out == 0:
            raise InsufficientLiquidity("the amount out rounds to 0")
        return Quote(
            chain_id=self.market.chain_id, from_token=from_token, to_token=to_token,
            amount_in=amount_in, amount_out=out, min_out=min_received(out, slippage),
            slippage=slippage, price_impact=price_impact(amount_in, out, reserves),
            path=tuple(path), spender="" if from_token == NATIVE else self.market.router,
        )

    async def allowance(self, token: str, owner: str) -> int:
        """What the router may take of `token` from `owner`; unlimited for the native currency."""
        if token == NATIVE:
            return MAX_UINT256
        (result,) = await batch(self.http, self.rpc_url, [
            _eth_call(token, "allowance(address,address)", [owner, self.market.router])])
        return int(_decode(["uint256"], result)[0])

    async def approve_tx(self, quote: Quote, owner: str) -> TxRequest:
        """approve(router, amount_in): the exact amount by default (issue 16)."""
        if quote.from_token == NATIVE:
            raise SwapError(NO_APPROVAL)
        return TxRequest(owner, to_checksum_address(quote.from_token),
                         call_data("approve(address,uint256)", [self.market.router, quote.amount_in]))

    async def swap_tx(self, quote: Quote, user: str, deadline_s: int) -> TxRequest:
        path = list(quote.path)
        router = self.market.router
        if quote.from_token == NATIVE:
            data = call_data("swapExactETHForTokens(uint256,address[],address,uint256)",
                             [quote.min_out, path, user, deadline_s])
            return TxRequest(user, router, data, quote.amount_in)
        function = ("swapExactTokensForETH" if quote.to_token == NATIVE
                    else "swapExactTokensForTokens")
        data = call_data(f"{function}(uint256,uint256,address[],address,uint256)",
                         [quote.amount_in, quote.min_out, path, user, deadline_s])
        return TxRequest(user, router, data)
