"""The session doctor's state (issue 44): why the visitor's last connect, sign-in, send or swap
failed or was abandoned, as a cause from a closed list, and the support code the failure screen
offers to copy. The cause is decided by `engine/doctor.diagnose`, a pure function of each step's
typed message and the model before and after it (never of a text); this slice only keeps it and
copies the code."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from ..core.cmds import EffectReply
from ..core.msg import Msg
from ..core.shape import On, Slice
from . import clipboard

if TYPE_CHECKING:
    from .model import Model, Step


class Cause(StrEnum):
    """Why a flow failed or was abandoned: a closed list (docs/features/session-doctor.md)."""

    WALLET_NOT_INSTALLED = "wallet_not_installed"  # the wallet chosen is not in this browser
    REQUEST_REJECTED = "request_rejected"  # the visitor said no in the wallet (EIP-1193 4001)
    WALLET_TIMED_OUT = "wallet_timed_out"  # the wallet never answered in time
    WALLET_ERROR = "wallet_error"  # the wallet answered with an error of its own
    WRONG_NETWORK = "wrong_network"  # the wallet is on a network the app does not support
    RELAY_UNREACHABLE = "relay_unreachable"  # WalletConnect's relay could not be reached
    DEEP_LINK_NOT_FOLLOWED = "deep_link_not_followed"  # a wallet app was opened, never answered
    ORIGIN_REFUSED = "origin_refused"  # the page's origin is not allowed for the project
    BUDGET_SPENT = "budget_spent"  # a mail, sponsor or rate budget is spent
    STORE_UNAVAILABLE = "store_unavailable"  # the session could not be saved, nothing was sent
    CHAIN_UNREACHABLE = "chain_unreachable"  # the chain's RPC (or an API over it) failed
    SERVICE_REFUSED = "service_refused"  # a service said no (no liquidity, no such name)
    INVALID_ANSWER = "invalid_answer"  # an answer broke its rules (no account, bad chain id)
    ABANDONED = "abandoned"  # the visitor closed the modal before the wallet answered
    UNKNOWN = "unknown"


Flow = Literal["connect", "sign_in", "send", "swap"]
FLOWS: tuple[Flow, ...] = ("connect", "sign_in", "send", "swap")
COPIED = "Support code copied"
MAX_WALLET = 64  # characters of a wallet's id kept (an announced id is the page's input)


@dataclass(frozen=True)
class Diagnosis:
    flow: Flow
    cause: Cause
    wallet: str = ""  # the connector's id ("" when none is involved)
    at: int = 0


@dataclass(frozen=True)
class DoctorState:
    last: Diagnosis | None = None
    count: int = 0  # diagnoses in this session (analytics counts each new one once)
    # False when the engine keeps no recordings (`serve` without `--record-dir`): a support code
    # could never be turned into a replay, so the failure screens offer none.
    support_codes: bool = True


def support_code(project_id: str, session_id: str) -> str:
    """The code a visitor hands to support: bound to the project and the session, and no way
    back to the session id (a hash); `modalcore doctor replay` finds the session by it."""
    digest = hashlib.sha256(f"modalcore-support|{project_id}|{session_id}".encode()).digest()
    text = base64.b32encode(digest[:10]).decode()
    return f"{text[:4]}-{text[4:8]}-{text[8:12]}"


@dataclass(frozen=True)
class PressedCopySupportCode(Msg):
    pass


@dataclass(frozen=True)
class SupportCodeCopied(EffectReply):
    """The browser copied the support code, or could not."""


def on_copy(model: Model, msg: PressedCopySupportCode, now: int) -> Step:
    if model.doctor.last is None:
        return model, []
    return clipboard.copy(model, support_code(model.project_id, model.session_id), SupportCodeCopied)


def on_copied(model: Model, msg: SupportCodeCopied, now: int) -> Step:
    return clipboard.copied(model, msg.ok, COPIED)


HANDLERS = (On(PressedCopySupportCode, on_copy), On(SupportCodeCopied, on_copied))
SLICE = Slice("doctor", HANDLERS)
