"""The typed arguments and results of the engine's chain and directory services.

A slice's call (`HANDLE.call(args, Reply, key)`) carries an instance of the service's `...Args`
model (arguments made from input are validated where the call is made,
`ServiceRef.call_or_refusal`). Results are TypedDicts: plain JSON-able data, what a recording stores and what the
session's edge validates into the reply the call named (`engine/replies.py`; the reply models
there stay lenient readers of older recordings, these are what the services produce now).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from ...rules import limits as L

HISTORY_PAGE_SIZE = 10  # transactions per history page unless a call asks for another limit


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ChainReadArgs(_Args):
    """A read-only request the embedded wallet serves without approval (behaviour.md §6)."""
    rpc_url: str
    method: Literal["eth_call", "eth_getBalance"]
    params: list[object] = Field(max_length=L.HOST_RPC_PARAMS)


class ChainReadResult(TypedDict):
    result: str


class BalancesArgs(_Args):
    rpc_url: str
    address: str
    tokens: list[str] = []


class BalancesResult(TypedDict):
    native: str  # wei, decimal
    tokens: dict[str, str]  # token address -> raw balance, decimal


class HistoryArgs(_Args):
    rpc_url: str = ""
    address: str | None = None  # none: behaviour.md §8's "no account address" error
    chain: str
    cursor: str | None = None
    limit: int = HISTORY_PAGE_SIZE
    native_name: str = "Ether"
    native_symbol: str = "ETH"
    native_decimals: int = 18
    onramp: str | None = None
    # solana: the network's SPL tokens, mint -> [symbol, name] (Activity names what moved)
    tokens: dict[str, list[str]] = {}


class HistoryResult(TypedDict):
    data: list[dict[str, object]]  # transactions in the hosted call's shape (services/backend/history.py)
    next: str | int | None


class NftsArgs(_Args):
    rpc_url: str
    address: str


class NftItem(TypedDict):
    contract: str
    token_id: str
    name: str
    symbol: str
    image: str  # from on-chain metadata (services/backend/nft_metadata.py), or ""


class NftsResult(TypedDict):
    block: int
    items: list[NftItem]


class FeeArgs(_Args):
    rpc_url: str
    tx: dict[str, str]
    token: str | None = None  # a token send: also ask whether the contract accepts the transfer


class FeeResult(TypedDict):
    gas: str
    gas_price: str
    fee: str
    transfer_ok: NotRequired[bool]


class DirectoryArgs(_Args):
    """A `/getWallets` query (directory/query.WalletQuery checks the bounds)."""

    page: int = 1
    entries: int = 40
    include: list[str] | str | None = None  # ids, or a comma-separated string
    exclude: list[str] | str | None = None
    search: str = ""
    badge_type: str = ""
    chains: list[str] | str | None = None
    mobile: bool = False
    universal: bool = False


class DirectoryResult(TypedDict):
    data: list[dict[str, object]]  # wallets as `/getWallets` answers them (Wallet.to_json)
    count: int
    image_base: str


# ----- chain_simulate (issue 43): eth_simulateV1 of what an approval would execute

SIMULATED_CALLS = 10  # rules/calls.py MAX_CALLS: a wallet_sendCalls batch at most
SIMULATED_LOGS = 256  # logs kept from one simulation, all calls together
_ADDRESS = r"^0x[0-9a-fA-F]{40}$"


class SimulateCall(_Args):
    to: str = Field(pattern=r"^(0x[0-9a-fA-F]{40})?$")
    value: str = Field(default="0x0", pattern=r"^0x[0-9a-fA-F]{0,64}$")
    data: str = Field(default="0x", pattern=r"^0x[0-9a-fA-F]*$", max_length=L.EMBEDDED_READ_CHARS)


class SimulateArgs(_Args):
    """Simulate `calls`, in order, from `account` on the node at `rpc_url`."""

    rpc_url: str
    account: str = Field(pattern=_ADDRESS)
    calls: list[SimulateCall] = Field(min_length=1, max_length=SIMULATED_CALLS)


class SimulatedLog(TypedDict):
    address: str
    topics: list[str]
    data: str  # the first 32-byte word only: all an outcome reads (simulation/outcome.py)


class SimulatedCall(TypedDict):
    ok: bool
    gas_used: int
    logs: list[SimulatedLog]


class SimulateResult(TypedDict):
    calls: list[SimulatedCall]
    base_fee: int
    insufficient: bool  # the node refused: the account cannot pay the value and the fee


# ----- embedded.userop_check (issue 43): a smart account's UserOperation as the bundler simulates it

USEROP_REASON_CHARS = 160  # the bundler's revert or refusal reason, as shown


class UserOpCheckArgs(_Args):
    """Estimate `calls` sent from the smart `account` of `owner` on `chain` as one UserOperation
    (what the signer would send for `method`), through the chain's bundler."""

    chain: str = Field(pattern=r"^eip155:[0-9]{1,20}$")
    owner: str = Field(pattern=_ADDRESS)
    account: str = Field(pattern=_ADDRESS)
    method: Literal["eth_sendTransaction", "wallet_sendCalls"]
    calls: list[SimulateCall] = Field(min_length=1, max_length=SIMULATED_CALLS)


class UserOpChecked(TypedDict):
    """`status`: "ok" (the bundler estimated it: `gas` is the operation's gas limits, `fee` wei
    = gas × the block's base fee + tip, 0 when `sponsored`), "reverted" (its call phase reverts)
    or "refused" (the account's or the paymaster's validation fails); `reason` the bundler's."""

    status: Literal["ok", "reverted", "refused"]
    gas: str
    fee: str
    sponsored: bool
    reason: str
