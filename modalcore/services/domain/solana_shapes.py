"""The typed arguments and results of the Solana services (the same shape as services/domain/shapes.py:
arguments validated by the runtime into these models, results plain JSON-able TypedDicts)."""

from __future__ import annotations

from typing import TypedDict

from pydantic import BaseModel, ConfigDict, JsonValue


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SolanaBalancesArgs(_Args):
    rpc_url: str
    address: str  # base58
    tokens: list[str] = []  # SPL mints


class SolanaSendArgs(_Args):
    rpc_url: str
    sender: str
    receiver: str
    mint: str | None = None  # None: SOL
    amount: int  # base units (lamports, or the token's)
    decimals: int


class SolanaSubmitArgs(_Args):
    rpc_url: str
    transaction: str  # base64, signed by the wallet
    message: str  # base64 of the message the engine prepared


class SolanaFeeResult(TypedDict):
    fee: int  # lamports
    gas: int
    gas_price: int


class PreparedSend(TypedDict):
    transaction: str
    message: str


class SubmittedSend(TypedDict):
    signature: str
    confirmed: bool
    err: JsonValue  # the chain's transaction error, None when it succeeded
