"""The typed handles of the engine's services: what a slice's `Call` names, what the runtime
registers an implementation under (`services/table.py`, `services/wiring.py`, ...). Each handle
carries the service's arguments' model and its result type; the models that do not live in
`shapes.py`/`solana_shapes.py` are here, so that naming a service imports no I/O library (a
slice imports this module; the implementations import it too).
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict

from ..core.cmds import ServiceRef
from .shapes import (
    BalancesArgs,
    BalancesResult,
    ChainReadArgs,
    ChainReadResult,
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


# ----- services/names.py


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


# ----- services/onramp/service.py


class OptionsArgs(_Args):
    network: str
    purchase: list[dict[str, Any]] = []  # the built-in fallback's purchase currencies


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


# ----- services/swap/service.py


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


# ----- farcaster/service.py


class StatusArgs(_Args):
    token: str
    nonce: str


# ----- siwx/service.py


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
DIRECTORY: ServiceRef[DirectoryArgs, DirectoryResult] = ServiceRef("directory", DirectoryArgs, DirectoryResult)
SOLANA_ESTIMATE_FEE: ServiceRef[SolanaSendArgs, SolanaFeeResult] = ServiceRef(
    "solana_estimate_fee", SolanaSendArgs, SolanaFeeResult)
SOLANA_PREPARE_SEND: ServiceRef[SolanaSendArgs, PreparedSend] = ServiceRef(
    "solana_prepare_send", SolanaSendArgs, PreparedSend)
SOLANA_SUBMIT_SEND: ServiceRef[SolanaSubmitArgs, SubmittedSend] = ServiceRef(
    "solana_submit_send", SolanaSubmitArgs, SubmittedSend)

NAME_OF: ServiceRef[NameOfArgs, Answer] = ServiceRef("name_of", NameOfArgs, dict)
ADDRESS_OF: ServiceRef[AddressOfArgs, Answer] = ServiceRef("address_of", AddressOfArgs, dict)
NAME_SUGGESTIONS: ServiceRef[SuggestionsArgs, Answer] = ServiceRef("name_suggestions", SuggestionsArgs, dict)
REGISTER_NAME: ServiceRef[RegisterArgs, Answer] = ServiceRef("register_name", RegisterArgs, dict)

ONRAMP_OPTIONS: ServiceRef[OptionsArgs, Any] = ServiceRef("onramp_options", OptionsArgs, object)
ONRAMP_QUOTE: ServiceRef[QuoteArgs, Any] = ServiceRef("onramp_quote", QuoteArgs, object)
ONRAMP_URL: ServiceRef[UrlArgs, Any] = ServiceRef("onramp_url", UrlArgs, object)

SWAP_QUOTE: ServiceRef[SwapQuoteArgs, Answer] = ServiceRef("swap_quote", SwapQuoteArgs, dict)
SWAP_TOKENS: ServiceRef[SwapTokensArgs, Answer] = ServiceRef("swap_tokens", SwapTokensArgs, dict)
TX_RECEIPT: ServiceRef[TxReceiptArgs, Answer] = ServiceRef("tx_receipt", TxReceiptArgs, dict)

EMAIL_CODE: ServiceRef[EmailArgs, Answer] = ServiceRef("embedded.email_code", EmailArgs, dict)
# the engine's embedded wallet signing (and sending): held until its state is saved (issue 27)
EMBEDDED_SIGN: ServiceRef[SignArgs, dict[str, str]] = ServiceRef("embedded.sign", SignArgs, dict)
FARCASTER_STATUS: ServiceRef[StatusArgs, Answer] = ServiceRef("farcaster.status", StatusArgs, dict)

SIWX_NONCE: ServiceRef[NonceArgs, NonceResult] = ServiceRef("siwx.nonce", NonceArgs, NonceResult)
SIWX_SESSIONS: ServiceRef[SessionsArgs, SessionsResult] = ServiceRef("siwx.sessions", SessionsArgs, SessionsResult)
SIWX_VERIFY: ServiceRef[VerifyArgs, VerifyResult] = ServiceRef("siwx.verify", VerifyArgs, VerifyResult)
SIWX_REVOKE: ServiceRef[RevokeArgs, RevokeResult] = ServiceRef("siwx.revoke", RevokeArgs, RevokeResult)
SIWS_SESSIONS: ServiceRef[SiwsSessionsArgs, SessionsResult] = ServiceRef(
    "siws.sessions", SiwsSessionsArgs, SessionsResult)
SIWS_VERIFY: ServiceRef[SiwsVerifyArgs, VerifyResult] = ServiceRef("siws.verify", SiwsVerifyArgs, VerifyResult)
