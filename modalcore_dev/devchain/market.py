"""A local Uniswap V2 market on a dev chain: WETH9, UniswapV2Factory and UniswapV2Router02 from
the published npm artifacts (fixtures/chain/contracts, copied by chain/compile.mjs), and one
pool per POOLS entry funded by the deployer through the router (exact approvals, so no
allowance is left behind).

Pool prices follow the demo's known prices (ETH 2000 USD, DEMO 2 USD, TUSD 1 USD)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eth_utils.address import to_checksum_address

from modalcore_dev.devchain.contracts import deploy_contract
from modalcore_dev.devchain.rpc import Rpc

NATIVE = "ETH"
DEADLINE = 2**256 - 1  # liquidity is added at deployment: no deadline
MARKET_ARTIFACTS = ("WETH9", "UniswapV2Factory", "UniswapV2Router02")


@dataclass(frozen=True)
class PoolSpec:
    """A pool and its initial liquidity in whole units of each side ("ETH" is native)."""

    a: str
    b: str
    a_units: int
    b_units: int

    @property
    def symbols(self) -> tuple[str, str]:
        return self.a, self.b


POOLS: tuple[PoolSpec, ...] = (
    PoolSpec(NATIVE, "DEMO", 50, 50_000),
    PoolSpec(NATIVE, "TUSD", 50, 100_000),
    PoolSpec("DEMO", "TUSD", 50_000, 100_000),
)


@dataclass(frozen=True)
class TokenRef:
    address: str
    unit: int


def _amount(symbol: str, units: int, tokens: Mapping[str, TokenRef]) -> int:
    return units * (10**18 if symbol == NATIVE else tokens[symbol].unit)


def pool_amounts(spec: PoolSpec, tokens: Mapping[str, TokenRef]) -> dict[str, int]:
    """The raw amounts a pool holds right after deployment, by symbol."""
    return {spec.a: _amount(spec.a, spec.a_units, tokens), spec.b: _amount(spec.b, spec.b_units, tokens)}


def deploy_market(rpc: Rpc, deployer: str, tokens: Mapping[str, TokenRef]) -> dict[str, str]:
    """Deploy WETH9, the factory and the router, add the POOLS' liquidity; returns the three
    addresses."""
    weth = deploy_contract(rpc, deployer, "WETH9", [], [])
    factory = deploy_contract(rpc, deployer, "UniswapV2Factory", ["address"], [deployer])
    router = deploy_contract(rpc, deployer, "UniswapV2Router02", ["address", "address"],
                             [factory, weth])
    for spec in POOLS:
        amounts = pool_amounts(spec, tokens)
        for symbol in spec.symbols:
            if symbol != NATIVE:
                rpc.send_call(deployer, tokens[symbol].address, "approve(address,uint256)",
                              [router, amounts[symbol]])
        if NATIVE in spec.symbols:
            token = spec.b if spec.a == NATIVE else spec.a
            rpc.send_call(
                deployer, router,
                "addLiquidityETH(address,uint256,uint256,uint256,address,uint256)",
                [tokens[token].address, amounts[token], amounts[token], amounts[NATIVE],
                 deployer, DEADLINE],
                value=amounts[NATIVE],
            )
        else:
            rpc.send_call(
                deployer, router,
                "addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)",
                [tokens[spec.a].address, tokens[spec.b].address, amounts[spec.a], amounts[spec.b],
                 amounts[spec.a], amounts[spec.b], deployer, DEADLINE],
            )
    return {"weth": weth, "factory": factory, "router": router}


def describe_market(rpc: Rpc, addresses: Mapping[str, str],
                    tokens: Mapping[str, TokenRef]) -> dict[str, Any]:
    """The deployment entry's "uniswapV2" part, read back from the chain."""
    weth, factory, router = addresses["weth"], addresses["factory"], addresses["router"]
    (router_factory,) = rpc.eth_call(router, "factory()", returns=["address"])
    (router_weth,) = rpc.eth_call(router, "WETH()", returns=["address"])
    if (router_factory.lower(), router_weth.lower()) != (factory.lower(), weth.lower()):
        raise ValueError(f"router {router} is not wired to factory {factory} and WETH {weth}")

    def address_of(symbol: str) -> str:
        return weth if symbol == NATIVE else tokens[symbol].address

    pairs: list[dict[str, Any]] = []
    for spec in POOLS:
        (pair,) = rpc.eth_call(factory, "getPair(address,address)",
                               [address_of(spec.a), address_of(spec.b)], ["address"])
        if int(pair, 16) == 0:
            raise ValueError(f"no {spec.a}/{spec.b} pair on factory {factory}")
        (token0,) = rpc.eth_call(pair, "token0()", returns=["address"])
        (token1,) = rpc.eth_call(pair, "token1()", returns=["address"])
        pairs.append({
            "symbols": list(spec.symbols),
            "address": to_checksum_address(pair),
            "token0": to_checksum_address(token0),
            "token1": to_checksum_address(token1),
            # Reserves right after deployment (raw integer strings), by symbol.
            "liquidity": {s: str(v) for s, v in pool_amounts(spec, tokens).items()},
        })
    return {"weth": weth, "factory": factory, "router": router, "pairs": pairs}
