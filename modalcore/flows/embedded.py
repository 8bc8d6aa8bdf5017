"""The embedded wallet's email sign-in (issue 15; behaviour.md §1 email, §5 'Please try again after {n}
seconds'): Connect's email field → the engine mails a 6-digit code → EmailVerifyOtp → the code
is checked by the engine → the visitor is connected with the auth connector.

Sending the code is a service call (`embedded.email_code`, `modalcore/embedded/service.py`): the
code store, its clock and randomness, SMTP and the key vault stay out of `update`; the answer
comes back as `EmailCodeRequested`. The code is typed inside the engine-origin sign-in frame
that EmailVerifyOtp draws (issue 27): its route checks it and registers that frame's key, then
delivers `EmailCodeChecked`. The host page never sees the code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import embedded as rules
from ..rules.addresses import checksum
from ..rules.texts import email_code_rate_limited
from ..slices import handoff, router
from ..slices.embedded import (
    ChangedEmailDraft,
    EmailCodeChecked,
    EmailCodeRequested,
    EmbeddedState,
    PasskeySignedIn,
    PressedChangeEmail,
    PressedResendCode,
    SubmittedEmail,
    email_identity,
)
from ..slices.modal import legal_gate_closed
from .connect import NAMESPACE
from .smart_account import connect_embedded
from ..services.domain.handles import EMAIL_CODE

if TYPE_CHECKING:
    from ..slices.model import Model, Step

OTP_VIEW = "EmailVerifyOtp"
CONNECT_VIEW = "Connect"
REQUEST_SERVICE = EMAIL_CODE


def _state(model: Model, **changes: object) -> Model:
    return replace(model, embedded=replace(model.embedded, **changes))


def on_draft(model: Model, msg: ChangedEmailDraft, now: int) -> Step:
    return _state(model, email_draft=msg.value, email_error=None), []


def request_code(model: Model, email: str) -> Step:
    model = _state(model, email=email, requesting=True, email_error=None, notice=None)
    return model, [REQUEST_SERVICE.call_or_refusal({"email": email}, EmailCodeRequested, key=email)]


def on_submit(model: Model, msg: SubmittedEmail, now: int) -> Step:
    if not model.options.features.email or not model.embedded.email_offered or model.embedded.requesting:
        return model, []
    typed = model.embedded.email_draft if msg.value is None else msg.value
    email = rules.normalize_email(typed)
    if email is None:
        return _state(model, email_draft=typed, email_error=rules.INVALID_EMAIL), []
    return request_code(_state(model, email_draft=typed), email)


def on_requested(model: Model, msg: EmailCodeRequested, now: int) -> Step:
    state = model.embedded
    if msg.key != state.email or not state.requesting:
        return model, []
    on_code_view = model.router.view == OTP_VIEW
    if not msg.ok or msg.result is None:
        field = "notice" if on_code_view else "email_error"
        return _state(model, requesting=False, **{field: rules.CODE_SEND_FAILED}), []
    if msg.result.status != "sent":
        seconds = msg.result.seconds
        text = (email_code_rate_limited(seconds) if msg.result.status == "rate_limited"
                else rules.codes_over_budget(seconds))
        return _state(model, requesting=False, **{"notice" if on_code_view else "email_error": text}), []
    notice = rules.code_sent_to(state.email) if on_code_view else None
    model = _state(model, requesting=False, code_error=None, notice=notice)
    if not on_code_view:
        model = replace(model, router=router.push(model.router, OTP_VIEW, state.email))
    return model, []


def on_checked(model: Model, msg: EmailCodeChecked, now: int) -> Step:
    state = model.embedded
    if msg.email != state.email or model.router.view != OTP_VIEW:
        return model, []
    result = msg.result
    if result.verdict == "wrong":
        return _state(model, code_error=rules.wrong_code(result.attempts_left)), []
    if result.verdict == "locked":
        return _state(model, code_error=rules.CODE_LOCKED), []
    if result.verdict in ("expired", "no_code"):
        return _state(model, code_error=rules.CODE_EXPIRED), []
    if not result.address:
        return _state(model, code_error=rules.CODE_CHECK_FAILED), []
    model, cmds = signed_in(model, state.email, checksum(result.address), now)
    return handoff.adopt(model, msg.key), cmds  # a phone linked with no account, if it signed in


def signed_in(model: Model, email: str, address: str, now: int) -> Step:
    """A verified email: its key's account (its smart account where the chain has one, issue 32)
    is connected with the auth connector, on the active network (the embedded wallet supports
    only configured chains, behaviour.md §5)."""
    chain = model.networks.active or (model.networks.known[0].id if model.networks.known else "eip155:1")
    model = replace(model, embedded=EmbeddedState(identity=email_identity(email), user_email=email, email=email,
                                                  email_offered=model.embedded.email_offered,
                                                  socials=model.embedded.socials))
    return connect_embedded(model, address, chain, now, user_email=email)


def passkey_offered(model: Model) -> bool:
    """Connect draws "Sign in with a passkey" beside the email field (issue 43 §3): where email
    sign-in is offered, no embedded account is signed in, and the legal gate (if any) is open."""
    return (model.options.features.email and model.embedded.email_offered and not model.embedded.identity
            and not legal_gate_closed(model))


def passkey_signin(model: Model) -> str:
    """Whose passkey may sign this session in now: "email" the typed email's (EmailVerifyOtp's
    frame, after the code was asked), "any" the account the passkey names (Connect's frame, no
    email typed), "" nobody's."""
    if model.embedded.identity:
        return ""
    if model.router.view == OTP_VIEW and model.embedded.email:
        return "email"
    return "any" if model.router.view == CONNECT_VIEW and passkey_offered(model) else ""


def on_passkey(model: Model, msg: PasskeySignedIn, now: int) -> Step:
    """Signed in exactly as with an accepted code (the same account, the same host events)."""
    waiting = passkey_signin(model)
    if not waiting or (waiting == "email" and msg.email != model.embedded.email):
        return model, []
    model, cmds = signed_in(model, msg.email, checksum(msg.address), now)
    return handoff.adopt(model, msg.key), cmds  # a phone linked with no account, if it signed in


def on_resend(model: Model, msg: PressedResendCode, now: int) -> Step:
    state = model.embedded
    if model.router.view != OTP_VIEW or state.requesting or not state.email:
        return model, []
    return request_code(_state(model, code_error=None), state.email)


def on_change_email(model: Model, msg: PressedChangeEmail, now: int) -> Step:
    if model.router.view != OTP_VIEW:
        return model, []
    history = model.router.history
    model = replace(model, router=replace(model.router, history=history[:-1] or (router.Route("Connect"),)))
    return _state(model, code_error=None, notice=None, requesting=False), []


def is_embedded(model: Model) -> bool:
    """The connected account is the embedded wallet's."""
    return model.accounts.get(NAMESPACE).connector_id == rules.AUTH_CONNECTOR_ID


HANDLERS = (
    On(ChangedEmailDraft, on_draft),
    On(SubmittedEmail, on_submit),
    On(EmailCodeRequested, on_requested),
    On(EmailCodeChecked, on_checked),
    On(PasskeySignedIn, on_passkey),
    On(PressedResendCode, on_resend),
    On(PressedChangeEmail, on_change_email),
)

SLICE = Slice("embedded", HANDLERS)
