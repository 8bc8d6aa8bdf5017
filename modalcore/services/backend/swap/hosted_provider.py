"""The quote-provider interface over the hosted `/v1/convert/*` API (behaviour.md §7), for behaviour.md §9's
swap networks. Tokens and accounts go out as CAIP-10; the answers' shapes are the hosted API's
(quotes[].toAmount, allowance, tx {to, data, amount|value} with CAIP-10 addresses). The hosted
API builds its own deadline and does not report price impact (None)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from eth_utils.address import to_checksum_address

from ..blockchain_api import BlockchainApiError
from .amounts import min_received
from .convert_api import NATIVE_TOKEN_ADDRESS, ConvertApi
from .networks import require_swap_network
from ...domain.swap_types import DEFAULT_SLIPPAGE, NATIVE, InsufficientLiquidity, Quote, SwapError, TxRequest
from .uniswap_v2 import MAX_UINT256, NO_AMOUNT, NO_APPROVAL, SAME_TOKEN

BAD_ANSWER = "The swap service answered something unexpected"


def _address(caip10_or_address: str) -> str:
    return str(to_checksum_address(caip10_or_address.rsplit(":", 1)[-1]))


class HostedSwapProvider:
    def __init__(self, api: ConvertApi, chain_id: int) -> None:
        require_swap_network(f"eip155:{chain_id}")
        self.api = api
        self.chain_id = chain_id

    def caip(self, token_or_account: str) -> str:
        address = NATIVE_TOKEN_ADDRESS if token_or_account == NATIVE else token_or_account
        return f"eip155:{self.chain_id}:{address}"

    async def quote(self, from_token: str, to_token: str, amount_in: int, *,
                    slippage: Decimal = DEFAULT_SLIPPAGE, user: str = "") -> Quote:
        if from_token.lower() == to_token.lower():
            raise SwapError(SAME_TOKEN)
        if amount_in <= 0:
            raise SwapError(NO_AMOUNT)
        answer = await self.api.quotes(amount_in, self.caip(user), self.caip(from_token),
                                       self.caip(to_token))
        quotes = answer.get("quotes") if isinstance(answer, dict) else None
        if not quotes:
            raise InsufficientLiquidity("no quote")
        amount_out = _int(quotes[0], "toAmount")
        if amount_out <= 0:
            raise InsufficientLiquidity("the amount out is 0")
        return Quote(chain_id=self.chain_id, from_token=from_token, to_token=to_token,
                     amount_in=amount_in, amount_out=amount_out,
                     min_out=min_received(amount_out, slippage), slippage=slippage,
                     price_impact=None)

    async def allowance(self, token: str, owner: str) -> int:
        if token == NATIVE:
            return MAX_UINT256
        return _int(await self.api.allowance(self.caip(token), self.caip(owner)), "allowance")

    async def approve_tx(self, quote: Quote, owner: str) -> TxRequest:
        if quote.from_token == NATIVE:
            raise SwapError(NO_APPROVAL)
        tx = _tx(await self.api.build_approve(self.caip(owner), self.caip(quote.from_token),
                                              self.caip(quote.to_token)))
        return TxRequest(owner, _address(str(tx["to"])), str(tx["data"]))

    async def swap_tx(self, quote: Quote, user: str, deadline_s: int) -> TxRequest:
        tx = _tx(await self.api.build_transaction(
            quote.amount_in, self.caip(quote.from_token), self.caip(quote.to_token),
            self.caip(user), slippage=quote.slippage))
        value = _int(tx, "amount") if quote.from_token == NATIVE else 0
        return TxRequest(user, _address(str(tx["to"])), str(tx["data"]), value)


def _int(data: Any, key: str) -> int:
    try:
        return int(str(data[key]), 0) if str(data[key]).startswith("0x") else int(str(data[key]))
    except (KeyError, TypeError, ValueError):
        raise BlockchainApiError(BAD_ANSWER) from None


def _tx(answer: object) -> dict[str, object]:
    tx = answer.get("tx") if isinstance(answer, dict) else None
    if not isinstance(tx, dict) or "to" not in tx or not str(tx.get("data", "")).startswith("0x"):
        raise BlockchainApiError(BAD_ANSWER)
    try:
        _address(str(tx["to"]))
    except ValueError:
        raise BlockchainApiError(BAD_ANSWER) from None
    return tx
