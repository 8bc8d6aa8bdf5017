"""What every swap quote provider answers (behaviour.md §1 swaps, §9 swap constants).

Tokens are named by address; NATIVE names the chain's native currency (ETH on the dev chains).
Amounts are raw integers in the token's smallest unit. Providers read the chain or a hosted
API; they never read a clock (a swap's deadline is passed in)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, Protocol, TypedDict

NATIVE = "native"
DEFAULT_SLIPPAGE = Decimal(1)  # percent, behaviour.md §9 "Swap slippage default 1"
INSUFFICIENT_LIQUIDITY = "Insufficient liquidity"
NOT_SUPPORTED_SWAPS = "Network not supported for Swaps"  # behaviour.md §8
NOT_SUPPORTED_GAS_PRICE = "Network not supported for Gas Price"  # behaviour.md §8


class ListedToken(TypedDict):
    address: str
    symbol: str
    name: str
    decimals: int
    icon: str


class SwapTokens(TypedDict):
    """What service `swap_tokens` answers: the network's token list, and whether the network has
    swaps at all (behaviour.md §8 'Network not supported for Swaps'): a fact about the network, not a
    failure (a failure leaves the list unknown)."""

    tokens: list[ListedToken]
    supported: bool


TxParams = TypedDict("TxParams", {"from": str, "to": str, "data": str, "value": str})  # eth_sendTransaction's


class SwapQuoteAnswer(TypedDict):
    """What service `swap_quote` answers: all the next press needs (raw units, decimal)."""

    amountIn: str
    amountOut: str
    minOut: str
    priceImpact: str | None  # percent; None when the provider cannot tell
    allowance: str
    approve: TxParams | None  # the approval to send first when the allowance is short
    swap: TxParams
    fee: str | None  # wei; None when the network fee could not be estimated
    gas: str
    path: list[str]


class TxReceipt(TypedDict):
    """What service `tx_receipt` answers."""

    status: Literal["confirmed", "failed", "pending"]
    block: str  # decimal; "" while pending


class SwapError(ValueError):
    """A swap cannot be quoted or built; `str(error)` is the message shown."""


class InsufficientLiquidity(SwapError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(INSUFFICIENT_LIQUIDITY)
        self.detail = detail


class SwapNotSupported(SwapError):
    """The network is not among the swap networks (behaviour.md §9) and has no local market."""


@dataclass(frozen=True)
class Quote:
    chain_id: int
    from_token: str  # address or NATIVE
    to_token: str
    amount_in: int
    amount_out: int
    min_out: int  # amount_out after slippage (floored)
    slippage: Decimal  # percent
    price_impact: Decimal | None  # percent, None when the provider cannot tell
    path: tuple[str, ...] = ()  # the route's token addresses (WETH for NATIVE), when known
    spender: str = ""  # who needs the allowance of from_token ("" for NATIVE)

    def to_dict(self) -> dict[str, object]:
        return {
            "chainId": self.chain_id, "from": self.from_token, "to": self.to_token,
            "amountIn": str(self.amount_in), "amountOut": str(self.amount_out),
            "minOut": str(self.min_out), "slippage": str(self.slippage),
            "priceImpact": None if self.price_impact is None else str(self.price_impact),
            "path": list(self.path), "spender": self.spender,
        }


@dataclass(frozen=True)
class TxRequest:
    """A transaction for the wallet (eth_sendTransaction params)."""

    sender: str
    to: str
    data: str
    value: int = 0

    def to_params(self) -> TxParams:
        return {"from": self.sender, "to": self.to, "data": self.data, "value": hex(self.value)}


class QuoteProvider(Protocol):
    async def quote(self, from_token: str, to_token: str, amount_in: int, *,
                    slippage: Decimal = DEFAULT_SLIPPAGE, user: str = "") -> Quote: ...

    async def allowance(self, token: str, owner: str) -> int:
        """What the swap's spender may take of `token` from `owner` (unlimited for NATIVE)."""
        ...

    async def approve_tx(self, quote: Quote, owner: str) -> TxRequest:
        """The approval a swap needs first: exactly quote.amount_in of quote.from_token."""
        ...

    async def swap_tx(self, quote: Quote, user: str, deadline_s: int) -> TxRequest: ...
