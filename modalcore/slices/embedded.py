"""The embedded wallet's sign-in state (issue 15): the email typed on Connect, the code view,
and who is signed in. The messages live here; what they do across slices (connect the account,
open the code view) is the embedded flow (`flows/embedded.py`).

The code itself never enters the model: the engine's code service (`embedded.email_code`) sends
it, the visitor types it inside the engine-origin sign-in frame, whose route checks it (issue
27); the session only learns the verdict, and on
success the address of the visitor's key (`identity`, kept here, is what later signing calls
name; it is set only from a verified reply, never from what the page sends).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.cmds import EffectReply, Reply
from ..core.msg import Msg
from ..rules import embedded as rules
from ..rules import limits as L
from .farcaster import FarcasterChannel
from ..simulation.outcome import Outcome
from ..wire.frames import TextArgs


# behaviour.md §6: what the embedded wallet runs at once, and what waits for the visitor's approval in
# the engine-origin frame; any other method is refused (rules/texts.py RPC_CALL_NOT_ALLOWED).
SAFE_METHODS = ("eth_call", "eth_getBalance", "eth_chainId", "wallet_getAssets", "eth_accounts",
                "eth_requestAccounts", "wallet_switchEthereumChain",
                # EIP-5792 (issue 32): AppKit's SAFE_RPC_METHODS hold the first two; showing a
                # batch's status in the modal signs nothing either
                "wallet_getCapabilities", "wallet_getCallsStatus", "wallet_showCallsStatus")
APPROVAL_METHODS = ("personal_sign", "eth_signTypedData_v4", "eth_sendTransaction", "wallet_sendCalls")
EMBEDDED_EFFECT = "embedded"  # the effect kind the session never sends to the page


@dataclass(frozen=True)
class EmbeddedRequest:
    """A wallet request to the embedded wallet, held until answered; `key` what it was for,
    `params` the JSON text. Where its answer goes waits in the model's pending effects (engine/pending.py)."""

    eid: str
    method: str
    params: str
    key: str
    chain: str = ""
    signing: bool = False  # approved: the engine's signer is at work
    at: int = 0
    # wallet_getAssets (flows/assets.py): the chains whose balances are still being read, and
    # the answer gathered so far (JSON text: hex chain id -> assets)
    waiting: tuple[str, ...] = ()
    assets: str = ""
    # issue 43: what the approval shows it will do (flows/simulation.py); None for a request that
    # is not simulated (a message or typed data to sign)
    outcome: Outcome | None = None
    # while the outcome is pending: how the node's simulation went ("asked": no answer yet) and
    # the fee it estimated for the estimate path ("" until it answers; flows/simulation.py)
    simulation: Literal["asked", "failed", "insufficient", "done"] = "asked"
    fee: str = ""
    # a smart account's UserOperation (flows/simulation.py): the bundler's check ("" for the EOA),
    # its reason, and the node's simulated outcome held until the bundler answers
    bundler: Literal["", "asked", "ok", "reverted", "refused", "failed"] = ""
    reason: str = ""
    held: Outcome | None = None


@dataclass(frozen=True)
class EmbeddedState:
    email_draft: str = ""  # what the visitor typed in Connect's email field
    email_error: str | None = None  # shown under that field
    email: str = ""  # the normalized address the last code was requested for
    requesting: bool = False  # a code request is on its way
    code_error: str | None = None  # wrong, expired or locked code (typed in the sign-in frame)
    notice: str | None = None  # 'Please try again after {n} seconds', 'A new code was sent'
    identity: str = ""  # "email:alice@example.com" once a code was accepted
    user_email: str = ""
    request: EmbeddedRequest | None = None  # what the wallet was asked, not answered yet
    # What this engine offers (set at join from the operator's [embedded] config): email needs
    # an SMTP server, a social provider its OpenID configuration. Off unless the engine says.
    email_offered: bool = False
    socials: tuple[str, ...] = ()
    social: str = ""  # the provider whose popup is open
    social_error: str | None = None
    farcaster: FarcasterChannel | None = None  # ConnectingFarcaster's relay channel (issue 33)
    # the last answer to the host dApp's provider (host_event "rpc"): JSON text of
    # {"id", "ok", "result"} or {"id", "ok": false, "code", "message"}
    host_answer: str = ""
    host_pending: str = ""  # the id of the host's request waiting on the WalletConnect wallet
    host_pending_method: str = ""  # … and its method


# ----- what the visitor does


@dataclass(frozen=True)
class ChangedEmailDraft(Msg):
    value: str


@dataclass(frozen=True)
class SubmittedEmail(Msg):
    """Enter in the email field, or its Continue button (`value` None: the draft)."""

    value: str | None = None


@dataclass(frozen=True)
class PressedResendCode(Msg):
    pass


@dataclass(frozen=True)
class PressedChangeEmail(Msg):
    pass


def change_email(args: TextArgs) -> Msg:
    return ChangedEmailDraft(args.value)


def submit_email(args: TextArgs) -> Msg:
    return SubmittedEmail(args.value)


# ----- what the engine's code service answers


class CodeRequestResult(BaseModel):
    """`embedded.email_code`: the code was mailed, or the email asked less than 30 s ago
    (`rate_limited`), or a mail budget is spent (`over_budget`: `scope` names it, `seconds`
    until it has room)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    status: Literal["sent", "rate_limited", "over_budget"]
    scope: Literal["", "address", "session", "email", "project", "engine", "guess"] = ""
    seconds: int = Field(default=0, ge=0, le=86_400)


@dataclass(frozen=True)
class EmailCodeRequested(Reply):
    """`key`: the normalized email."""

    result: CodeRequestResult | None = None


class CodeCheckResult(BaseModel):
    """The code's verdict; on `accepted`, the address of the email's key."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    verdict: Literal["accepted", "wrong", "expired", "locked", "no_code"]
    attempts_left: int = Field(ge=0, le=5)
    address: str = Field(default="", pattern=r"^(0x[0-9a-fA-F]{40})?$")


@dataclass(frozen=True)
class EmailCodeChecked(Msg):
    """The code typed inside the engine-origin sign-in frame was checked (issue 27): only the
    sign-in frame's route delivers it (server/verify.py), which registered that frame's key on
    `accepted`. The host page never sees the code: no node of its tree takes it."""

    email: str
    result: CodeCheckResult
    key: str = ""  # the frame's public key registered on `accepted` (a linked phone's: slices/handoff.adopt)


@dataclass(frozen=True)
class PasskeySignedIn(Msg):
    """A passkey's assertion signed in an email account (issue 43 §3): only the passkey route
    delivers it (server/passkey.py), once the engine checked the assertion and registered the
    frame's key, as an accepted code does; `address` is the email's key's. From Connect no email
    was typed: the passkey named the account."""

    email: str
    address: str
    key: str = ""  # the frame's public key registered with it (a linked phone's: slices/handoff.adopt)


def email_identity(email: str) -> str:
    return f"email:{email}"


# ----- the embedded wallet's requests


@dataclass(frozen=True)
class EmbeddedRequested(Msg):
    """A slice asked the embedded wallet something (`wallet_request` on the auth connector)."""

    eid: str


@dataclass(frozen=True)
class ApprovalDecided(Msg):
    """The visitor pressed Approve or Reject in the approval frame. Only the engine's approval
    route delivers it (server/approval.py), after checking the signature of a key registered by a
    sign-in inside the frame (issue 27): no node of the host page's tree produces it. `evidence`
    (an Approve's): canonical JSON of the approval tree the frame drew, its hash, the signature and
    the key, which the audit log keeps (audit/derive.py); the flow does not read it."""

    eid: str
    approve: bool
    evidence: str = ""


@dataclass(frozen=True)
class ApprovalTimedOut(Msg):
    eid: str


class SignResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    result: str = Field(pattern=r"^0x[0-9a-fA-F]{62,}$")  # behaviour.md §5: a hash or a signature


class ReadResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    result: str = Field(pattern=r"^0x[0-9a-fA-F]*$", max_length=L.EMBEDDED_READ_CHARS)  # a quantity or call data


@dataclass(frozen=True)
class EmbeddedRead(Reply):
    """`chain_read` answered for a safe read (eth_call, eth_getBalance; `key`: the request's eid)."""

    result: ReadResult | None = None


@dataclass(frozen=True)
class EmbeddedSigned(Reply):
    """`embedded.sign` answered (`key`: the request's eid)."""

    result: SignResult | None = None


# ----- social sign-in (OpenID Connect in a popup of the engine-origin frame; the callback is
# served by the engine)


@dataclass(frozen=True)
class PressedSocial(Msg):
    provider: str


@dataclass(frozen=True)
class SocialSignedIn(Msg):
    """The engine's routes verified the provider's answer (state, PKCE, ID token with its nonce)
    and the confirmation of the frame that opened the popup (its key, now registered), and
    opened the identity's key: only they deliver it (server/social.py)."""

    provider: str
    subject: str
    address: str
    username: str = ""
    email: str = ""
    key: str = ""  # the frame's public key registered with it (a linked phone's: slices/handoff.adopt)


@dataclass(frozen=True)
class SocialFailed(Msg):
    provider: str
    error: str
