"""Engine services behind `Call` commands, typed: each validates its arguments into the model in
`services/domain/shapes.py` and returns that module's result shape. `default_services` builds the
table the runtime runs them from."""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from ...directory.backend.source import run_query
from ...core.services import serve, ServiceContext, ServiceError, ServiceTable
from ..domain.handles import BALANCES, CHAIN_READ, CHAIN_SIMULATE, DIRECTORY, ESTIMATE_FEE, HISTORY, NFTS, SOLANA_BALANCES, SOLANA_ESTIMATE_FEE, SOLANA_PREPARE_SEND, SOLANA_SUBMIT_SEND
from .balances import fetch_balances
from .blockchain_api import BlockchainApi
from .history import LOCAL_ONRAMP, fetch_history, hosted_history, mark_purchases, with_onramp
from .nfts import fetch_nfts
from .onramp.provider import OnrampProvider
from .onramp.service import onramp_api, onramp_services
from .swap.service import swap_services
from .swap.uniswap_v2 import UniswapV2Market
from .send import estimate_fee as estimate_send_fee
from . import jsonrpc
from .simulate import simulate
from ..domain.shapes import (
    ChainReadArgs,
    ChainReadResult,
    SimulateArgs,
    SimulateResult,
    BalancesArgs,
    BalancesResult,
    DirectoryArgs,
    DirectoryResult,
    FeeArgs,
    FeeResult,
    HistoryArgs,
    HistoryResult,
    NftsArgs,
    NftsResult,
)
from .solana_balances import fetch_solana_balances
from .solana_history import fetch_solana_history
from .solana_send import estimate_solana_fee, prepare_solana_send, submit_solana_send
from ..domain.solana_shapes import (
    PreparedSend,
    SolanaBalancesArgs,
    SolanaFeeResult,
    SolanaSendArgs,
    SolanaSubmitArgs,
    SubmittedSend,
)


def default_services(http: httpx.AsyncClient, blockchain_api: BlockchainApi | None = None,
                     local_onramp: OnrampProvider | None = None,
                     swap_markets: Mapping[int, UniswapV2Market] | None = None) -> ServiceTable:
    """With `blockchain_api` (an operator-configured hosted API), history comes from its
    history call; otherwise from the self-hosted indexer over the network's RPC."""

    async def balances(ctx: ServiceContext | None, args: BalancesArgs) -> BalancesResult:
        return await fetch_balances(http, rpc_url=args.rpc_url, address=args.address, tokens=args.tokens)

    async def solana_balances(ctx: ServiceContext | None, args: SolanaBalancesArgs) -> BalancesResult:
        return await fetch_solana_balances(http, rpc_url=args.rpc_url, address=args.address, tokens=args.tokens)

    async def solana_estimate_fee(ctx: ServiceContext | None, args: SolanaSendArgs) -> SolanaFeeResult:
        return await estimate_solana_fee(http, args)

    async def solana_prepare_send(ctx: ServiceContext | None, args: SolanaSendArgs) -> PreparedSend:
        return await prepare_solana_send(http, args)

    async def solana_submit_send(ctx: ServiceContext | None, args: SolanaSubmitArgs) -> SubmittedSend:
        return await submit_solana_send(http, args)

    async def history(ctx: ServiceContext | None, args: HistoryArgs) -> HistoryResult:
        if args.chain.startswith("solana:"):  # read from the cluster, whatever serves eip155
            return await fetch_solana_history(
                http, rpc_url=args.rpc_url, address=args.address or "", chain=args.chain, cursor=args.cursor,
                limit=args.limit, native_name=args.native_name, native_symbol=args.native_symbol,
                native_decimals=args.native_decimals, tokens=args.tokens)
        if blockchain_api is not None:
            page = await hosted_history(blockchain_api, address=args.address or "", chain=args.chain,
                                        cursor=args.cursor)
            if args.onramp and not args.cursor:
                page = await with_onramp(blockchain_api, page, address=args.address or "",
                                         chain=args.chain, onramp=args.onramp)
            return page
        page = await fetch_history(
            http, rpc_url=args.rpc_url, address=args.address or "", chain=args.chain, cursor=args.cursor,
            limit=args.limit, native_name=args.native_name, native_symbol=args.native_symbol,
            native_decimals=args.native_decimals,
        )
        if local_onramp is not None:
            page = mark_purchases(page, local_onramp.purchases(), LOCAL_ONRAMP)
        return page

    async def nfts(ctx: ServiceContext | None, args: NftsArgs) -> NftsResult:
        return await fetch_nfts(http, rpc_url=args.rpc_url, address=args.address)

    async def estimate_fee(ctx: ServiceContext | None, args: FeeArgs) -> FeeResult:
        return await estimate_send_fee(http, rpc_url=args.rpc_url, tx=args.tx, token=args.token)

    async def directory(ctx: ServiceContext | None, args: DirectoryArgs) -> DirectoryResult:
        # the local directory; wiring replaces it with the one that reads the engine's config
        return await run_query(None, http, "", args.model_dump())

    async def chain_read(ctx: ServiceContext | None, args: ChainReadArgs) -> ChainReadResult:
        result = await jsonrpc.call(http, args.rpc_url, args.method, args.params)
        if not isinstance(result, str):
            raise ServiceError("unexpected answer from the network")
        return {"result": result}

    async def chain_simulate(ctx: ServiceContext | None, args: SimulateArgs) -> SimulateResult:
        return await simulate(http, args)

    return {BALANCES: serve(BALANCES, balances), HISTORY: serve(HISTORY, history),
            CHAIN_READ: serve(CHAIN_READ, chain_read), CHAIN_SIMULATE: serve(CHAIN_SIMULATE, chain_simulate),
            ESTIMATE_FEE: serve(ESTIMATE_FEE, estimate_fee), DIRECTORY: serve(DIRECTORY, directory),
            NFTS: serve(NFTS, nfts), SOLANA_BALANCES: serve(SOLANA_BALANCES, solana_balances),
            SOLANA_ESTIMATE_FEE: serve(SOLANA_ESTIMATE_FEE, solana_estimate_fee),
            SOLANA_PREPARE_SEND: serve(SOLANA_PREPARE_SEND, solana_prepare_send),
            SOLANA_SUBMIT_SEND: serve(SOLANA_SUBMIT_SEND, solana_submit_send),
            **swap_services(http, blockchain_api, swap_markets),
            **onramp_services(local_onramp, onramp_api(http, blockchain_api))}
