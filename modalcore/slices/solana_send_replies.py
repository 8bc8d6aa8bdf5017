"""The replies of a Solana send's steps (slices/solana_send.py): prepared by the engine, signed
by the wallet, submitted and confirmed by the engine. Apart so that send.py can start a Solana
send without importing the module that handles its replies."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, JsonValue

from ..core.cmds import EffectReply, Reply


class PreparedSolanaSend(BaseModel):
    """What service `solana_prepare_send` returns."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    transaction: str  # base64, unsigned
    message: str  # base64 of the message the wallet must sign unchanged


class SubmittedSolanaSend(BaseModel):
    """What service `solana_submit_send` returns."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    signature: str
    confirmed: bool
    err: JsonValue = None  # the chain's transaction error, None when it succeeded


@dataclass(frozen=True)
class SolanaSendPrepared(Reply):
    """The unsigned transaction of send `key` came back."""

    result: PreparedSolanaSend | None = None


@dataclass(frozen=True)
class SolanaTransactionSigned(EffectReply):
    """The wallet answered solana:signTransaction for send `key`."""


@dataclass(frozen=True)
class SolanaSendSubmitted(Reply):
    """Send `key` was submitted and followed to confirmation (or failed)."""

    result: SubmittedSolanaSend | None = None
