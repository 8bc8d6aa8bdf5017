"""The typed handles of the engine's services: what a slice's `Call` names, what the runtime
registers an implementation under (`services/backend/table.py`, `services/backend/wiring.py`, ...). Each handle
carries the service's arguments' model and its result type; the models that do not live in
`shapes.py`/`solana_shapes.py` are here, so that naming a service imports no I/O library (a
slice imports this module; the implementations import it too).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from ...core.cmds import ServiceRef
from .swap_types import SwapQuoteAnswer, SwapTokens, TxReceipt
from .shapes import (
    BalancesArgs,
    BalancesResult,
    ChainReadArgs,
    ChainReadResult,
    SimulateArgs,
    SimulateResult,
    UserOpCheckArgs,
    UserOpChecked,
    DirectoryArgs,
    DirectoryResult,
    FeeArgs,
    FeeResult,
    HistoryArgs,
    HistoryResult,
    NftsArgs,
    NftsResult,
)
from .solana_shapes import (
    PreparedSend,
    SolanaBalancesArgs,
    SolanaFeeResult,
    SolanaSendArgs,
    SolanaSubmitArgs,
    SubmittedSend,
)

Answer = dict[str, Any]  # a service whose answer the reply's model reads (no TypedDict of its own yet)


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ----- services/backend/names.py


class NameOfArgs(_Args):
    chain_id: int
    rpc_url: str
    registry: str
    address: str


class AddressOfArgs(_Args):
    chain_id: int
    rpc_url: str
    registry: str
    name: str


class SuggestionsArgs(_Args):
    label: str


class RegisterArgs(_Args):
    label: str
    address: str
    message: str
    signature: str
    chain_id: int = 1


class NameFound(TypedDict):
    """Service `name_of`: the address's name (None: it has none)."""

    name: str | None


class AddressFound(TypedDict):
    """Service `address_of`: the (lower-cased) name's address (None: it has none)."""

    name: str
    address: str | None


class NameSuggestions(TypedDict):
    """Service `name_suggestions`: whether `label` is free under `suffix`, and free ones like it."""

    label: str
    suffix: str
    available: bool
    suggestions: list[str]


class NameRegistered(TypedDict):
    """Service `register_name`: refused (`ok` false, with the reason) or the name registered."""

    ok: bool
    error: str
    name: str
    address: str


# ----- services/backend/onramp/service.py


class OptionsArgs(_Args):
    network: str
    purchase: list[dict[str, JsonValue]] = []  # the built-in fallback's purchase currencies


class QuoteArgs(_Args):
    network: str
    purchase_currency: str
    payment_currency: str
    amount: str
    price: str | None = None  # USD per unit, for an estimate
    decimals: int = 6


class UrlArgs(_Args):
    network: str
    address: str
    purchase_currency: str
    payment_currency: str
    amount: str


class OrderUrl(TypedDict):
    """Service `onramp_url`: the provider's page for the order."""

    url: str


# ----- services/backend/swap/service.py


class SwapQuoteArgs(_Args):
    network: str
    rpc_url: str
    from_token: str
    to_token: str
    amount: str
    slippage: str
    user: str


class SwapTokensArgs(_Args):
    network: str


class TxReceiptArgs(_Args):
    rpc_url: str
    hash: str


# ----- embedded/service.py


class EmailArgs(_Args):
    email: str


class SignArgs(_Args):
    identity: str
    method: str
    params: str
    chain: str
    account: str = ""  # the address the request is from: the smart account or the EOA (issue 32)
    request: str = ""  # the request's effect id: what a send is recorded under before it leaves (issue 38)


class HandoffArgs(_Args):
    """The engine makes the link's random nonce (issue 44 item 1, server/handoff.py); `typed`: the
    link is also offered as a code to type (on a phone, to continue on a computer), which the
    service notes in the session store for the computer's page to find."""

    typed: bool = False


class HandoffTokenResult(TypedDict):
    nonce: str  # random, URL-safe: the link's token is derived from it (slices/handoff.link_token)
    base: str  # the engine's origin as browsers reach it


class CodeSent(TypedDict):
    """What service `embedded.email_code` answers (`seconds` until it may ask again, and the
    spent budget's `scope`, when refused)."""

    status: Literal["sent", "rate_limited", "over_budget"]
    seconds: NotRequired[int]
    scope: NotRequired[str]


MAX_SMART_ACCOUNT_CHAINS = 32


class SmartAccountsArgs(_Args):
    identity: str
    chains: list[str] = Field(max_length=MAX_SMART_ACCOUNT_CHAINS)


class SmartAccountFound(TypedDict):
    chain: str  # CAIP-2
    address: str
    deployed: bool


class SmartAccountsFound(TypedDict):
    """Service `embedded.smart_accounts`: the owner key's address and its smart account per asked
    chain that has one (a chain left out shows the EOA)."""

    owner: str
    accounts: list[SmartAccountFound]


class CallsStatusArgs(_Args):
    chain: str = Field(pattern=r"^eip155:[0-9]{1,20}$")
    user_op_hash: str = Field(pattern=r"^0x[0-9a-fA-F]{64}$")


class CallsStatusFound(TypedDict):
    """Service `embedded.calls_status`: EIP-5792's status of the batch's UserOperation (100
    pending, 200 confirmed, 500 reverted) and its receipt (what slices/calls.CallsStatusResult
    validates)."""

    status: int
    receipts: list[dict[str, Any]]


# ----- farcaster/service.py


class StatusArgs(_Args):
    token: str
    nonce: str


class SignInArgs(_Args):
    token: str = Field(max_length=128)
    message: str = Field(max_length=4096)


class SignInSigned(TypedDict):
    """Service `farcaster.sign_in`: the engine-held key's signature of the SIWX message."""

    signature: str


# ----- siwx/backend/service.py


class NonceArgs(_Args):
    session_key: str


class SessionsArgs(_Args):
    address: str
    domain: str | None = None
    chain_id: int | str | None = None


class VerifyArgs(_Args):
    message: str
    signature: str
    session_key: str
    domain: str
    uri: str
    chain_id: int | str
    address: str | None = None
    rpc_url: str | None = None


class SiwsSessionsArgs(_Args):
    address: str  # base58, case kept
    domain: str | None = None
    chain: str  # CAIP-2 (solana:...)


class SiwsVerifyArgs(_Args):
    message: str
    signature: str  # base64 Ed25519
    session_key: str
    domain: str
    uri: str
    chain: str
    address: str | None = None


class RevokeArgs(_Args):
    address: str
    domain: str | None = None


class NonceResult(TypedDict):
    nonce: str


class SessionsResult(TypedDict):
    sessions: list[dict[str, object]]  # SiwxSession.to_json


class VerifyResult(TypedDict):
    ok: bool
    token: NotRequired[str]
    session: NotRequired[dict[str, object]]
    reason: NotRequired[str]
    error: NotRequired[str]


class RevokeResult(TypedDict):
    revoked: int


# ----- the handles

BALANCES: ServiceRef[BalancesArgs, BalancesResult] = ServiceRef("balances", BalancesArgs, BalancesResult)
SOLANA_BALANCES: ServiceRef[SolanaBalancesArgs, BalancesResult] = ServiceRef(
    "solana_balances", SolanaBalancesArgs, BalancesResult)
HISTORY: ServiceRef[HistoryArgs, HistoryResult] = ServiceRef("history", HistoryArgs, HistoryResult)
NFTS: ServiceRef[NftsArgs, NftsResult] = ServiceRef("nfts", NftsArgs, NftsResult)
ESTIMATE_FEE: ServiceRef[FeeArgs, FeeResult] = ServiceRef("estimate_fee", FeeArgs, FeeResult)
CHAIN_READ: ServiceRef[ChainReadArgs, ChainReadResult] = ServiceRef("chain_read", ChainReadArgs, ChainReadResult)
# issue 43: what an approval would do, simulated by the node (services/backend/simulate.py)
CHAIN_SIMULATE: ServiceRef[SimulateArgs, SimulateResult] = ServiceRef("chain_simulate", SimulateArgs, SimulateResult)
DIRECTORY: ServiceRef[DirectoryArgs, DirectoryResult] = ServiceRef("directory", DirectoryArgs, DirectoryResult)
SOLANA_ESTIMATE_FEE: ServiceRef[SolanaSendArgs, SolanaFeeResult] = ServiceRef(
    "solana_estimate_fee", SolanaSendArgs, SolanaFeeResult)
SOLANA_PREPARE_SEND: ServiceRef[SolanaSendArgs, PreparedSend] = ServiceRef(
    "solana_prepare_send", SolanaSendArgs, PreparedSend)
SOLANA_SUBMIT_SEND: ServiceRef[SolanaSubmitArgs, SubmittedSend] = ServiceRef(
    "solana_submit_send", SolanaSubmitArgs, SubmittedSend)

NAME_OF: ServiceRef[NameOfArgs, NameFound] = ServiceRef("name_of", NameOfArgs, NameFound)
ADDRESS_OF: ServiceRef[AddressOfArgs, AddressFound] = ServiceRef("address_of", AddressOfArgs, AddressFound)
NAME_SUGGESTIONS: ServiceRef[SuggestionsArgs, NameSuggestions] = ServiceRef(
    "name_suggestions", SuggestionsArgs, NameSuggestions)
REGISTER_NAME: ServiceRef[RegisterArgs, NameRegistered] = ServiceRef("register_name", RegisterArgs, NameRegistered)

ONRAMP_OPTIONS: ServiceRef[OptionsArgs, Any] = ServiceRef("onramp_options", OptionsArgs, object)
ONRAMP_QUOTE: ServiceRef[QuoteArgs, Any] = ServiceRef("onramp_quote", QuoteArgs, object)
ONRAMP_URL: ServiceRef[UrlArgs, OrderUrl] = ServiceRef("onramp_url", UrlArgs, OrderUrl)

SWAP_QUOTE: ServiceRef[SwapQuoteArgs, SwapQuoteAnswer] = ServiceRef("swap_quote", SwapQuoteArgs, SwapQuoteAnswer)
SWAP_TOKENS: ServiceRef[SwapTokensArgs, SwapTokens] = ServiceRef("swap_tokens", SwapTokensArgs, SwapTokens)
TX_RECEIPT: ServiceRef[TxReceiptArgs, TxReceipt] = ServiceRef("tx_receipt", TxReceiptArgs, TxReceipt)

HANDOFF_TOKEN: ServiceRef[HandoffArgs, HandoffTokenResult] = ServiceRef(
    "handoff.token", HandoffArgs, HandoffTokenResult)
EMAIL_CODE: ServiceRef[EmailArgs, CodeSent] = ServiceRef("embedded.email_code", EmailArgs, CodeSent)
# the engine's embedded wallet signing (and sending): held until its state is saved (issue 27)
EMBEDDED_SIGN: ServiceRef[SignArgs, dict[str, str]] = ServiceRef("embedded.sign", SignArgs, dict)
# the outcome of an approved request whose signer's answer was lost with its process (issue 38)
EMBEDDED_RESOLVE: ServiceRef[SignArgs, dict[str, str]] = ServiceRef("embedded.resolve", SignArgs, dict)
# the signed-in key's ERC-4337 smart account per chain (issue 32)
SMART_ACCOUNTS: ServiceRef[SmartAccountsArgs, SmartAccountsFound] = ServiceRef(
    "embedded.smart_accounts", SmartAccountsArgs, SmartAccountsFound)
# a smart account's UserOperation as the bundler simulates it, before its approval (issue 43)
USEROP_CHECK: ServiceRef[UserOpCheckArgs, UserOpChecked] = ServiceRef(
    "embedded.userop_check", UserOpCheckArgs, UserOpChecked)
# an EIP-5792 batch's status from the bundler's receipt (issue 32)
CALLS_STATUS: ServiceRef[CallsStatusArgs, CallsStatusFound] = ServiceRef(
    "embedded.calls_status", CallsStatusArgs, CallsStatusFound)
FARCASTER_STATUS: ServiceRef[StatusArgs, Answer] = ServiceRef("farcaster.status", StatusArgs, dict)
# the SIWX message one Farcaster approval covers, signed by the engine-held key (issue 33)
FARCASTER_SIGN_IN: ServiceRef[SignInArgs, SignInSigned] = ServiceRef("farcaster.sign_in", SignInArgs, SignInSigned)

SIWX_NONCE: ServiceRef[NonceArgs, NonceResult] = ServiceRef("siwx.nonce", NonceArgs, NonceResult)
SIWX_SESSIONS: ServiceRef[SessionsArgs, SessionsResult] = ServiceRef("siwx.sessions", SessionsArgs, SessionsResult)
SIWX_VERIFY: ServiceRef[VerifyArgs, VerifyResult] = ServiceRef("siwx.verify", VerifyArgs, VerifyResult)
SIWX_REVOKE: ServiceRef[RevokeArgs, RevokeResult] = ServiceRef("siwx.revoke", RevokeArgs, RevokeResult)
SIWS_SESSIONS: ServiceRef[SiwsSessionsArgs, SessionsResult] = ServiceRef(
    "siws.sessions", SiwsSessionsArgs, SessionsResult)
SIWS_VERIFY: ServiceRef[SiwsVerifyArgs, VerifyResult] = ServiceRef("siws.verify", SiwsVerifyArgs, VerifyResult)
