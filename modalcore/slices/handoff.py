"""Continue on another device (issue 44 item 1): a single-use link to this session, scanned on
a phone, whose own key approves for the session once the visitor confirmed a short code on both
screens. See docs/features/continue-on-phone.md.

The steps, all through `update` (randomness and time are commands and `now`):

1. "Continue on your phone" (the modal's footer) shows ContinueOnPhone and asks the engine for a
   random nonce (`HANDOFF_TOKEN`, the command); `HandoffTokenMinted` offers the link
   `{base}/continue/{session}.{token}` for `LINK_TTL_MS` (a timer ends it). The token is
   `link_token(session, nonce)`, an HMAC under the engine's link key (`use_link_key`, from the
   engine's secret): the model keeps the nonce and the link's digest, never the token, so a
   saved session (the store's blob) cannot be turned into the link without the engine's secret.
2. The phone's page (server/handoff.py) claims it with its own public key: `PhoneClaimed`, which
   `claim_refusal` (pure, also what the page's answer is drawn from) accepts only for the link on
   offer, unexpired, for this session, from the engine's own origin. The link is spent then:
   a second claim is refused `used`.
3. Both screens show the same code (`short_code`, derived from the link and the phone's key).
   "Yes, it does" is drawn in a frame of the engine's origin (server/handoff_confirm.py), not by
   the host page: it counts only with the signature of this browser's device key registered for
   the session's embedded account, visibly shown (approval_guard.py), and delivers
   `PhoneConfirmed`, which links the phone's key for that account (`linked_key`). "No" (in the
   modal: anyone may say no) forgets it. A host page can press the modal's buttons; it cannot
   link its own server's key.
   With no account in the session at all (no embedded account, none connected: `open_yes`),
   "Yes, it does" is a button of the modal (`PressedHandoffYes`), with no signature: the phone
   it links gets exactly the powers the host page already has. It is drawn the session's views
   (what the host page is drawn, or the same views drawn for a phone: a WalletConnect pairing's
   deep link where the host has its QR code) and sends intents the host could send; what its
   own presses ask of a browser (Copy, Open) goes to the phone; host events and wallet requests
   stay the host page's; and it approves nothing: the phone's approval frame is drawn, and its
   Approve counts, only while `linked_key` holds, which compares the link's `identity` ("" here)
   with the embedded account's, and an embedded request needs an account. So an account signed
   in later ends such a link (the host page could have pressed Yes for its own server's key),
   unless the phone itself signed in: `adopt`, the key the sign-in frame registered being the
   linked key (the frame inside the phone's modal keeps its key where the phone's page does). An
   account connected or signed in while the phone waits for Yes makes the unsigned Yes count no
   more (the button is gone from the tree, an intent naming it is refused `invalid`, and
   `on_yes` changes nothing). A WalletConnect account connected through the phone leaves the
   link as it is (the embedded identity stays "").
4. While linked, ApproveTransaction waits for the phone (server/handoff.py's approve), which
   delivers the same `ApprovalDecided` as the approval frame.

On a phone (`env.mobile`) the same steps run with the roles swapped (`HandoffState.to` is
"computer"): the footer says "Continue on your computer", the link is offered as a short address
and a code to type (`typed_code`, 8 characters derived as the token is; a desktop rarely scans),
the computer's page (server/handoff_code.py) turns the code into the link and claims it with the
computer's key, the phone (the screen that owns the session) confirms the code both show, and
the computer joins as the companion.

A refusal is a `HandoffRefusal` value: the model is left exactly as it was.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from ..core.cmds import CancelTimer, Effect, EffectReply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.cmds import Reply
from ..core.shape import On, Slice
from ..services.domain.handles import HANDOFF_TOKEN
from . import router, snack, stack
from .accounts import holds_connection

if TYPE_CHECKING:
    from .model import Model, Step

VIEW = "ContinueOnPhone"
LINK_TTL_MS = 120_000  # the link works for 2 minutes (issue 44)
PATH = "/continue/"
CONFIRM_PATH = "/continue-confirm"  # the confirmation frame (server/handoff_confirm.py)
SPENT_KEPT = 8  # links spent lately, remembered so that a second scan says "used"
TIMER = "handoff-expiry"
Status = Literal["idle", "minting", "offered", "expired", "confirm", "linked"]
Device = Literal["phone", "computer"]  # the device that continues the session
CODE_CHARS = 8  # the typed code: 8 characters of Crockford's base32, 40 bits
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
TYPED_MAX_CHARS = 32  # what a typed code may be before it is read (spaces and dashes included)
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})


class HandoffRefusal(enum.Enum):
    """Why a phone's claim of a link is refused (the page shows it; nothing changes)."""

    UNKNOWN = "unknown_link"  # not a link this session offers (another session's, or made up)
    EXPIRED = "expired_link"
    USED = "used_link"  # claimed once already: a second scan
    FOREIGN_ORIGIN = "foreign_origin"  # not claimed from the engine's origin the link names


@dataclass(frozen=True)
class HandoffState:
    status: Status = "idle"
    nonce: str = ""  # while the link is on offer: the token is link_token(session, nonce), never kept
    digest: str = ""  # sha256 of the link (the session id and the token)
    base: str = ""  # the engine's origin the link names
    expires_at: int = 0
    phone_key: str = ""  # the phone's public key (SPKI, base64url): linked once confirmed
    identity: str = ""  # the embedded account the phone approves for (linked)
    code: str = ""
    spent: tuple[str, ...] = ()  # digests of links claimed lately
    to: Device = "phone"  # "computer": offered on a phone, continued on a computer (a typed code)


class HandoffToken(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    nonce: str
    base: str


@dataclass(frozen=True)
class PressedContinueOnPhone(Msg):
    pass


@dataclass(frozen=True)
class HandoffTokenMinted(Reply):
    result: HandoffToken | None = None


@dataclass(frozen=True)
class HandoffLinkExpired(Msg):
    digest: str


@dataclass(frozen=True)
class PhoneClaimed(Msg):
    """The phone's page claimed the link (delivered by server/handoff.py, never by a node)."""

    digest: str
    public_key: str
    origin: str  # where the claiming page was served from, as the browser said


@dataclass(frozen=True)
class PhoneConfirmed(Msg):
    """The desktop confirmed the code in the engine's confirmation frame (delivered by
    server/handoff_confirm.py after checking the desktop's device key, never by a node)."""

    digest: str
    public_key: str


@dataclass(frozen=True)
class PressedHandoffDeny(Msg):
    pass


@dataclass(frozen=True)
class PressedHandoffYes(Msg):
    """"Yes, it does" pressed in the modal: counts only while the session has no account at all
    (`open_yes`); with one, the engine's confirmation frame is the only Yes."""


@dataclass(frozen=True)
class PressedHandoffNewLink(Msg):
    pass


@dataclass(frozen=True)
class PressedCopyHandoffLink(Msg):
    pass


@dataclass(frozen=True)
class HandoffLinkCopied(EffectReply):
    """The browser copied the link, or could not."""


def link_digest(session_id: str, token: str) -> str:
    return hashlib.sha256(f"modalcore-continue\n{session_id}\n{token}".encode()).hexdigest()


_KEY_LABEL = b"modalcore-continue-link-key"
_link_key = [hmac.new(secrets.token_bytes(32), _KEY_LABEL, hashlib.sha256).digest()]


def use_link_key(secret: bytes) -> None:
    """Derive the links' tokens from the engine's secret (server/app.py, at start): every worker
    of an engine, and the same engine after a restart, draws the same link for a saved nonce.
    Until then (tests, tools) a random key of this process."""
    _link_key[0] = hmac.new(secret, _KEY_LABEL, hashlib.sha256).digest()


def link_token(session_id: str, nonce: str) -> str:
    """The link's secret part: 32 URL-safe characters, HMAC-SHA256 under the engine's link key of
    (session, nonce). Deterministic (views are pure: the QR code drawn again is the same), and
    not derivable from what the session store holds."""
    mac = hmac.new(_link_key[0], f"modalcore-continue-token\n{session_id}\n{nonce}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:24]).decode()


def link_of(state: HandoffState, session_id: str) -> str:
    return f"{state.base}{PATH}{session_id}.{link_token(session_id, state.nonce)}"


def typed_code(session_id: str, nonce: str) -> str:
    """The code the computer's visitor types (the phone shows it beside the short address): 8
    characters of Crockford's base32 from an HMAC under the link key, as the token is, so the
    saved session (the nonce) does not give it away either."""
    mac = hmac.new(_link_key[0], f"modalcore-continue-code\n{session_id}\n{nonce}".encode(), hashlib.sha256)
    value = int.from_bytes(mac.digest()[:5], "big")
    return "".join(CODE_ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(CODE_CHARS)))


def read_code(typed: str) -> str | None:
    """A typed code as `typed_code` makes it (case, spaces and dashes ignored; O read as 0, I and
    L as 1), or None: longer than TYPED_MAX_CHARS, or not 8 characters of the alphabet."""
    if len(typed) > TYPED_MAX_CHARS:
        return None
    code = "".join(typed.split()).replace("-", "").upper().translate(_READ_AS)
    if len(code) != CODE_CHARS or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def spaced_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def short_code(digest: str, public_key: str) -> str:
    """Six digits both screens show: derived from the link and the phone's key, so a phone that
    claimed with another key shows another code."""
    value = int.from_bytes(hashlib.sha256(f"{digest}\n{public_key}".encode()).digest()[:8], "big")
    return f"{value % 1_000_000:06d}"


def claim_refusal(model: Model, msg: PhoneClaimed, now: int) -> HandoffRefusal | None:
    state = model.handoff
    if msg.digest in state.spent:
        return HandoffRefusal.USED
    if state.status != "offered" or msg.digest != state.digest:
        return HandoffRefusal.UNKNOWN
    if now >= state.expires_at:
        return HandoffRefusal.EXPIRED
    if msg.origin != state.base:
        return HandoffRefusal.FOREIGN_ORIGIN
    return None


def _mint(model: Model) -> Step:
    model = replace(model, handoff=replace(model.handoff, status="minting", nonce="", digest="",
                                           phone_key="", code=""))
    # a code to type is noted with the link (the service), so that the computer's page finds it
    args = HANDOFF_TOKEN.args(typed=True) if model.handoff.to == "computer" else HANDOFF_TOKEN.args()
    return model, [CancelTimer(TIMER), HANDOFF_TOKEN.call(args, HandoffTokenMinted)]


def on_pressed(model: Model, msg: PressedContinueOnPhone, now: int) -> Step:
    if model.router.view == VIEW or linked_key(model):
        return model, []
    to: Device = "computer" if model.env.mobile else "phone"  # a phone continues on a computer
    model = replace(model, router=router.push(model.router, VIEW), handoff=replace(model.handoff, to=to))
    return _mint(model)


def on_new_link(model: Model, msg: PressedHandoffNewLink, now: int) -> Step:
    if model.router.view != VIEW or model.handoff.status not in ("expired", "idle"):
        return model, []
    return _mint(model)


def on_minted(model: Model, msg: HandoffTokenMinted, now: int) -> Step:
    if model.handoff.status != "minting":
        return model, []
    if msg.result is None:
        model = replace(model, handoff=replace(model.handoff, status="idle"))
        return snack.show_error(model, "Could not make a link")
    if not msg.result.nonce:
        model = replace(model, handoff=replace(model.handoff, status="idle"))
        return snack.show_error(model, "Could not make a link")
    digest = link_digest(model.session_id, link_token(model.session_id, msg.result.nonce))
    model = replace(model, handoff=replace(model.handoff, status="offered", nonce=msg.result.nonce, digest=digest,
                                           base=msg.result.base, expires_at=now + LINK_TTL_MS))
    return model, [StartTimer(TIMER, LINK_TTL_MS, HandoffLinkExpired(digest))]


def on_expired(model: Model, msg: HandoffLinkExpired, now: int) -> Step:
    state = model.handoff
    if not msg.digest or state.status != "offered" or state.digest != msg.digest:
        return model, []
    return replace(model, handoff=replace(state, status="expired", nonce="")), []


def on_claimed(model: Model, msg: PhoneClaimed, now: int) -> Step:
    if claim_refusal(model, msg, now) is not None:
        return model, []
    state = model.handoff
    spent = (*state.spent, state.digest)[-SPENT_KEPT:]
    return replace(model, handoff=replace(state, status="confirm", nonce="", phone_key=msg.public_key,
                                          code=short_code(state.digest, msg.public_key), spent=spent)), []


def confirmable(model: Model) -> bool:
    """A phone waits for the desktop's Yes, and there is an embedded account to approve for."""
    return model.handoff.status == "confirm" and bool(model.embedded.identity)


def no_account(model: Model) -> bool:
    """No embedded account signed in and no account connected (or re-syncing) in any namespace."""
    return not model.embedded.identity and not any(holds_connection(account)
                                                   for _, account in model.accounts.by_namespace)


def open_yes(model: Model) -> bool:
    """A phone waits for Yes and the session has no account at all: a press of the modal's Yes
    links it (it gets no power the host page lacks; see the module's docstring)."""
    return model.handoff.status == "confirm" and no_account(model)


def on_confirm(model: Model, msg: PhoneConfirmed, now: int) -> Step:
    state = model.handoff
    if not confirmable(model) or msg.digest != state.digest or msg.public_key != state.phone_key:
        return model, []
    return _linked(model, model.embedded.identity)


def _linked(model: Model, identity: str) -> Step:
    state = model.handoff
    model = replace(model, handoff=replace(state, status="linked", identity=identity))
    model, cmds = stack.go_back(model) if model.router.view == VIEW else (model, [])
    model, more = snack.show(model, "Your computer is connected" if state.to == "computer" else "Your phone is connected")
    return model, [*cmds, *more]


def on_yes(model: Model, msg: PressedHandoffYes, now: int) -> Step:
    if not open_yes(model) or model.router.view != VIEW:
        return model, []  # an account came meanwhile: only the signed frame's Yes counts now
    return _linked(model, "")


def adopt(model: Model, key: str) -> Model:
    """An account just signed in whose sign-in frame registered `key`: a phone linked with no
    account, whose linked key that is (it signed in inside the phone's modal), stays linked and
    now approves for that account. Any other key (the sign-in was another browser's): the link
    is forgotten, as "No" forgets a claim (signing out later does not bring it back)."""
    state = model.handoff
    if state.status != "linked" or state.identity or not model.embedded.identity:
        return model
    if key and key == state.phone_key:
        return replace(model, handoff=replace(state, identity=model.embedded.identity))
    return replace(model, handoff=replace(state, status="idle", phone_key="", code=""))


def on_deny(model: Model, msg: PressedHandoffDeny, now: int) -> Step:
    if model.handoff.status != "confirm":
        return model, []
    model = replace(model, handoff=replace(model.handoff, status="idle", phone_key="", code=""))
    return snack.show_error(model, "Computer not connected" if model.handoff.to == "computer" else "Phone not connected")


def on_copy(model: Model, msg: PressedCopyHandoffLink, now: int) -> Step:
    if model.handoff.status != "offered":
        return model, []
    link = link_of(model.handoff, model.session_id)
    model, eid = model.next_id("e")
    return model, [Effect(eid, "clipboard", {"text": link}, HandoffLinkCopied, timeout_ms=5000)]


def on_copied(model: Model, msg: HandoffLinkCopied, now: int) -> Step:
    return snack.show(model, "Link copied") if msg.ok else snack.show_error(model, "Failed to copy")


def linked_key(model: Model) -> str:
    """The phone's public key when a phone is linked to this session for its embedded account
    (the one signed in now), or linked with no account while none is signed in, else ""."""
    state = model.handoff
    linked = state.status == "linked" and state.identity == model.embedded.identity
    return state.phone_key if linked else ""


HANDLERS = (
    On(PressedContinueOnPhone, on_pressed),
    On(PressedHandoffNewLink, on_new_link),
    On(HandoffTokenMinted, on_minted),
    On(HandoffLinkExpired, on_expired),
    On(PhoneClaimed, on_claimed),
    On(PhoneConfirmed, on_confirm),
    On(PressedHandoffDeny, on_deny),
    On(PressedHandoffYes, on_yes),
    On(PressedCopyHandoffLink, on_copy),
    On(HandoffLinkCopied, on_copied),
)
SLICE = Slice("handoff", HANDLERS)
