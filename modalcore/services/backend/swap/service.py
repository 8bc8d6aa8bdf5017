"""The engine service behind the Swap view's `Call("swap_quote", ...)`: one answer holds all the
visitor's next press needs (the quote, the allowance, the approve transaction when the allowance
is short, the swap transaction with its deadline, and the network fee), so pressing Swap sends
the wallet request at once, with no round trip.

The provider is the network's local Uniswap V2 market when it has one (the dev chains), else the
hosted `/v1/convert/*` API on behaviour.md §9's swap networks, else 'Network not supported for Swaps'.
A quote that cannot be given (no pool, insufficient liquidity, an unsupported network) fails
with its readable message as a `ServiceError`, never a traceback."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping

import httpx

from pydantic import BaseModel, ConfigDict

from ....core.services import serve, ServiceContext, ServiceError, ServiceTable
from ...domain.handles import SWAP_QUOTE, SWAP_TOKENS, SwapQuoteArgs, SwapTokensArgs, TX_RECEIPT, TxReceiptArgs
from ..blockchain_api import BlockchainApi
from ..jsonrpc import RpcCallError, batch
from .amounts import parse_slippage
from ....rules import limits as L
from .convert_api import NATIVE_TOKEN_ADDRESS, ConvertApi
from .networks import chain_of
from .select import swap_provider
from ...domain.swap_types import (NATIVE, InsufficientLiquidity, ListedToken, SwapError, SwapNotSupported, SwapQuoteAnswer,
                    SwapTokens, TxReceipt, TxRequest)
from .uniswap_v2 import UniswapV2Market

MAX_SWAP_TOKENS = L.MAX_SWAP_TOKENS
DEADLINE_S = 20 * 60  # the swap must be mined within 20 minutes of the quote's block
SWAP_GAS_GUESS = 200_000  # a swap's gas when it cannot be estimated yet (before its approval)
async def _block_and_price(http: httpx.AsyncClient, rpc_url: str) -> tuple[int, int]:
    """(the latest block's timestamp, the gas price)."""
    block, price = await batch(http, rpc_url, [("eth_getBlockByNumber", ["latest", False]),
                                                ("eth_gasPrice", [])])
    return int(block["timestamp"], 16), int(price, 16)


async def _gas(http: httpx.AsyncClient, rpc_url: str, approve: TxRequest | None, swap: TxRequest) -> int | None:
    """The gas the fee counts: the swap's estimate, or with an approval first, the approval's and
    a typical swap's (the swap cannot be estimated before its approval); None when it cannot be
    estimated (e.g. the balance cannot pay: the form says so already)."""
    try:
        (gas_hex,) = await batch(http, rpc_url, [("eth_estimateGas", [(approve or swap).to_params()])])
    except RpcCallError:
        return None
    return int(gas_hex, 16) + (SWAP_GAS_GUESS if approve is not None else 0)


async def swap_quote(http: httpx.AsyncClient, markets: Mapping[int, UniswapV2Market],
                     hosted: ConvertApi | None = None, *, network: str, rpc_url: str,
                     from_token: str, to_token: str, amount: str, slippage: str,
                     user: str) -> SwapQuoteAnswer:
    """The quote for `amount` (raw units) of `from_token` (an address or "native") into
    `to_token`, for `user`, at `slippage` percent."""
    try:
        chain_id = chain_of(network)
        provider = swap_provider(network, http, rpc_url=rpc_url,
                                 market=markets.get(chain_id) if chain_id is not None else None,
                                 hosted=hosted)
        quote = await provider.quote(from_token, to_token, int(amount),
                                     slippage=parse_slippage(slippage), user=user)
        allowance, (now_s, price) = await asyncio.gather(provider.allowance(from_token, user),
                                                         _block_and_price(http, rpc_url))
        approve = None
        if from_token != NATIVE and allowance < quote.amount_in:
            approve = await provider.approve_tx(quote, user)
        # the later of the chain's latest block and this machine's clock: a quiet chain's latest
        # block may be old (a dev chain reverted to a snapshot, a chain with no traffic)
        swap = await provider.swap_tx(quote, user, max(now_s, int(time.time())) + DEADLINE_S)
        gas = await _gas(http, rpc_url, approve, swap)
    except SwapError as error:
        raise _refusal(error) from None
    except ValueError as error:
        raise ServiceError(f"Invalid swap request: {error}", "invalid") from None
    return {
        "amountIn": str(quote.amount_in), "amountOut": str(quote.amount_out),
        "minOut": str(quote.min_out),
        "priceImpact": None if quote.price_impact is None else str(quote.price_impact),
        "allowance": str(min(allowance, 2**256 - 1)),
        "approve": None if approve is None else approve.to_params(),
        "swap": swap.to_params(), "fee": None if gas is None else str(gas * price), "gas": str(gas or 0),
        "path": list(quote.path),
    }


def _refusal(error: SwapError) -> ServiceError:
    """A swap the market cannot give (no pool, not enough liquidity) is `rejected`; one the
    request rules out (same token, no amount, a network without swaps) is `invalid`."""
    return ServiceError(str(error), "rejected" if isinstance(error, InsufficientLiquidity) else "invalid")


RECEIPT_POLL_S = 0.2


async def tx_receipt(http: httpx.AsyncClient, *, rpc_url: str, hash: str, polls: int = 100) -> TxReceipt:
    """Wait until transaction `hash` is mined: {"status": "confirmed" | "failed", "block"}; after
    `polls` reads (20 s, under a call's time limit) {"status": "pending"}, and the caller asks
    again. (An approval must be mined before the swap that spends it is sent to the wallet.)"""
    for _ in range(polls):
        (receipt,) = await batch(http, rpc_url, [("eth_getTransactionReceipt", [hash])])
        if isinstance(receipt, dict) and receipt.get("blockNumber"):
            block = str(int(str(receipt["blockNumber"]), 16))
            if int(str(receipt.get("status", "0x0")), 16) == 1:
                return {"status": "confirmed", "block": block}
            return {"status": "failed", "block": block}
        await asyncio.sleep(RECEIPT_POLL_S)
    return {"status": "pending", "block": ""}


async def swap_tokens(http: httpx.AsyncClient, markets: Mapping[int, UniswapV2Market],
                      hosted: ConvertApi | None = None, *, network: str) -> SwapTokens:
    """The network's swap token list beyond its configured tokens: none for a local market (its
    configured tokens are its list); the hosted `/v1/convert/tokens` list on behaviour.md §9's swap
    networks; elsewhere `supported: false` (the network has no swaps), before any request."""
    chain_id = chain_of(network)
    if chain_id is not None and chain_id in markets:
        return {"tokens": [], "supported": True}
    if hosted is None or chain_id is None:
        return {"tokens": [], "supported": False}
    try:
        answer = await hosted.tokens(network)
    except SwapNotSupported:
        return {"tokens": [], "supported": False}
    except SwapError as error:
        raise _refusal(error) from None
    tokens: list[ListedToken] = []
    for token in (answer.get("tokens") if isinstance(answer, dict) else None) or []:
        if not isinstance(token, dict):
            continue
        address = str(token.get("address", "")).rsplit(":", 1)[-1]
        if not address.startswith("0x") or address.lower() == NATIVE_TOKEN_ADDRESS:
            continue
        try:
            decimals = int(token.get("decimals", 18))
        except (TypeError, ValueError):
            continue
        tokens.append({"address": address, "symbol": str(token.get("symbol", ""))[:32],
                       "name": str(token.get("name", ""))[:64], "decimals": decimals,
                       "icon": str(token.get("logoUri", ""))[:2048]})
        if len(tokens) >= MAX_SWAP_TOKENS:
            break
    return {"tokens": tokens, "supported": True}


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def swap_services(http: httpx.AsyncClient, blockchain_api: BlockchainApi | None = None,
                  markets: Mapping[int, UniswapV2Market] | None = None) -> ServiceTable:
    """`swap_quote`, `swap_tokens`, `tx_receipt`: the local markets given (the dev chains', from
    `modalcore_dev`; none in production), and the hosted `/v1/convert/*` API when the operator
    configures the Blockchain API."""
    markets = markets or {}
    hosted = (ConvertApi(http, blockchain_api.base_url, blockchain_api.project_id, blockchain_api.st,
                         blockchain_api.sv) if blockchain_api is not None else None)

    async def quote(ctx: ServiceContext | None, args: SwapQuoteArgs) -> SwapQuoteAnswer:
        return await swap_quote(http, markets, hosted, **args.model_dump())

    async def tokens(ctx: ServiceContext | None, args: SwapTokensArgs) -> SwapTokens:
        return await swap_tokens(http, markets, hosted, network=args.network)

    async def receipt(ctx: ServiceContext | None, args: TxReceiptArgs) -> TxReceipt:
        return await tx_receipt(http, rpc_url=args.rpc_url, hash=args.hash)

    return {SWAP_QUOTE: serve(SWAP_QUOTE, quote), SWAP_TOKENS: serve(SWAP_TOKENS, tokens),
            TX_RECEIPT: serve(TX_RECEIPT, receipt)}
