"""Sign-in and re-verification inside the engine-origin frame (issue 27 §1): where a browser's
key becomes one that may approve.

GET  /embedded/signin?session=S
    EmailVerifyOtp's frame: the code field. The host page never sees the code.
POST /embedded/signin   {session, code, public_key, signature}
    The code of the email the session asked a code for, checked with the code store (5 wrong
    codes lock it); `signature` is the frame's key over `modalcore-register\\n{session}\\n{code}`
    (the key registered is one the poster holds); on `accepted` that key is registered for the email and
    `EmailCodeChecked` goes to the session, which connects the account. Every verdict goes to
    the session (it shows the texts); the frame only clears its field.
POST /embedded/verify/send   {session}
    From the approval frame of a browser without a registered key: a new code to the signed-in
    email (the same code rules as sign-in: one per 30 s).
POST /embedded/verify/code   {session, code, public_key, signature}
    That code, typed in the approval frame: registers the frame's key for the session's email.
GET  /embedded/social?session=S
    ConnectingSocial's frame: "Continue with …" opens the provider in a popup of this frame; or
    the frame takes the window one press on Connect opened (issue 39, server/social_window.py).
POST /embedded/verify/social   {session, public_key, bind}
    The authorization URL for that popup, bound to the frame's key and to `bind`, a random value
    the frame's script made for this sign-in and keeps (server/social.py): the provider the session is
    signing in with (ConnectingSocial), or a social identity re-verifying in the approval frame
    (server/social.py completes both, with the frame's confirmation).

What authorises a registration is the code or the provider's sign-in, which only the visitor's
mailbox and popup see; the session id, the frame URL and the page's HTML are not enough. Every
POST here must come from an engine-origin document (issue 38: `Sec-Fetch-Site: same-origin`,
Origin the engine's; frame_page.from_engine_frame): a host page on another origin of the same
site is refused before anything is read or spent.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..embedded.devicekeys import BadPublicKey, parse_public_key, signature_ok
from ..embedded.service import CodeChecked, check_code, send_code
from ..rules import embedded as rules
from ..rules.texts import email_code_rate_limited
from ..core.services import ServiceError
from ..flows.social import NAMES, SOCIAL_VIEW
from ..views.connecting_social import WINDOW_PATH
from ..slices.embedded import CodeCheckResult, EmailCodeChecked, email_identity
from .approval_theme import style
from .passkey_script import PASSKEY_BUTTON, PASSKEY_CSS, PASSKEY_SCRIPT, SIGNIN_PASSKEY_SCRIPT
from .frame_page import MAX_ID_CHARS, from_engine_frame, gone, json_body, page, refused, signin_ancestors
from .verify_script import SIGNIN_SCRIPT, SOCIAL_SCRIPT, SOCIAL_SIGNIN_SCRIPT

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from ..slices.model import Model
    from .hub import Hub
    from .social_window import OpenedWindows

log = logging.getLogger(__name__)
SIGNIN_PATH = "/embedded/signin"
OTP_VIEW = "EmailVerifyOtp"
SOCIAL_PATH = "/embedded/social"
BIND = re.compile(r"[A-Za-z0-9_-]{43}")  # the frame's flow value: 32 random bytes, base64url


def registration_text(session: str, code: str) -> bytes:
    """What the frame's key signs with a code: the key registered is one the poster holds."""
    return f"modalcore-register\n{session}\n{code}".encode()


def verify_css() -> str:
    return ("input{width:100%;box-sizing:border-box;padding:10px;font:inherit;letter-spacing:.4em;text-align:center;"
            "border-radius:calc(var(--rm) * 3);border:1px solid var(--line);background:var(--soft);color:var(--fg)}"
            "#verify p{margin:0 0 8px} #verify button{width:100%;margin-bottom:8px;padding:10px;border:0;"
            "border-radius:calc(var(--rm) * 3);font:inherit;background:var(--soft);color:var(--fg);cursor:pointer}")


def verdict_text(verdict: str, attempts_left: int) -> str:
    if verdict == "accepted":
        return ""
    if verdict == "wrong":
        return rules.wrong_code(attempts_left)
    return rules.CODE_LOCKED if verdict == "locked" else rules.CODE_EXPIRED


CODE_FIELD = ("<input id=code inputmode=numeric autocomplete=one-time-code maxlength=6 "
              "aria-label=\"Verification code\">")

def _signin_waiting(model: Model) -> bool:
    return model.router.view == OTP_VIEW and bool(model.embedded.email) and not model.embedded.identity


def social_provider(model: Model) -> str:
    """The provider a frame of this session may open: the one ConnectingSocial signs in with, or
    the signed-in social identity's (re-verification); "" for none."""
    if model.embedded.identity:
        return model.embedded.identity.partition(":")[0]
    return model.embedded.social if model.router.view == SOCIAL_VIEW else ""


def routes(hub: Hub, wallet: EmbeddedWallet | None, windows: OpenedWindows | None = None) -> list[Route]:
    async def find(session: str) -> Model | None:
        """The session as its owner holds it, wherever its socket is (issue 42: not taken over)."""
        if not session or len(session) > MAX_ID_CHARS:
            return None
        return await hub.peek(session)

    async def signin_page(request: Request) -> Response:
        session = request.query_params.get("session", "")
        model = await find(session)
        if model is None or wallet is None or not _signin_waiting(model):
            return gone("This sign-in is no longer waiting.")
        data = json.dumps({"path": SIGNIN_PATH, "session": session}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        # issue 43 §3: an email with a passkey may sign in with it instead of the code
        passkey = wallet.passkeys.count(email_identity(model.embedded.email)) > 0
        body = CODE_FIELD + (PASSKEY_BUTTON if passkey else "")
        script = SIGNIN_SCRIPT % {"data": data} + (PASSKEY_SCRIPT + SIGNIN_PASSKEY_SCRIPT if passkey else "")
        return page(hub, model.project_id, "Verification code", mode, style(model.theme) + verify_css() + PASSKEY_CSS,
                    body, script, signin_ancestors(hub, model.project_id))

    def checked(request: Request, email: str, data: dict[str, Any]) -> JSONResponse | CodeChecked:
        """The code checked for the session that asked it, spending the poster's guesses, once
        the key to register has signed for this session and code (nothing spent otherwise)."""
        assert wallet is not None
        session, code_ = data["session"], data["code"]
        try:
            _, spki = parse_public_key(data["public_key"])
        except BadPublicKey:
            return refused(400, "not a public key")
        if not signature_ok(spki, registration_text(session, code_), data["signature"]):
            return refused(403, "not signed by the key to register")
        try:
            return check_code(wallet, email, code_, data["public_key"], hub.clock.now_ms(), session=session,
                              address=request.client.host if request.client else "")
        except BadPublicKey:
            return refused(400, "not a public key")
        except ServiceError:
            return refused(400, "not a code")

    async def signin(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may sign in")
        data = await json_body(request, ("session", "code", "public_key", "signature"))
        if data is None:
            return refused(400, "malformed body")
        model = await find(data["session"])
        if model is None or wallet is None or not _signin_waiting(model):
            return refused(404, "this sign-in is no longer waiting")
        email = model.embedded.email
        answer = checked(request, email, data)
        if isinstance(answer, JSONResponse):
            return answer
        result = CodeCheckResult.model_validate(answer)
        key = data["public_key"] if result.verdict == "accepted" else ""
        await hub.route(data["session"], EmailCodeChecked(email=email, result=result, key=key))
        return JSONResponse({"verdict": result.verdict})

    async def signed_in_email(session: str) -> tuple[Model, str] | None:
        model = await find(session)
        if model is None or wallet is None:
            return None
        kind, _, email = model.embedded.identity.partition(":")
        return (model, email) if kind == "email" and email else None

    async def send(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may ask a code")
        data = await json_body(request, ("session",))
        found = None if data is None else await signed_in_email(data["session"])
        if data is None or found is None or wallet is None:
            return refused(404, "no email sign-in to verify")
        session = data["session"]
        try:
            sent = await send_code(wallet, found[1], hub.clock.now_ms(), address=hub.addresses.address_of(session),
                                   session=session, project=found[0].project_id)
        except ServiceError:
            return refused(503, "the code could not be sent")
        seconds = int(sent.get("seconds", 0))
        message = (rules.code_sent_to(found[1]) if sent["status"] == "sent"
                   else rules.codes_over_budget(seconds) if sent["status"] == "over_budget"
                   else email_code_rate_limited(seconds))
        return JSONResponse({"status": sent["status"], "message": message})

    async def code(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may verify")
        data = await json_body(request, ("session", "code", "public_key", "signature"))
        found = None if data is None else await signed_in_email(data["session"])
        if data is None or found is None:
            return refused(404, "no email sign-in to verify")
        answer = checked(request, found[1], data)
        if isinstance(answer, JSONResponse):
            return answer
        verdict, left = answer["verdict"], answer["attempts_left"]
        return JSONResponse({"verdict": verdict, "message": verdict_text(verdict, left)})

    async def social(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may begin a sign-in")
        data = await json_body(request, ("session", "public_key", "bind"))
        if data is not None and not BIND.fullmatch(data["bind"]):
            return refused(400, "malformed body")
        found = None if data is None else await find(data["session"])
        signins = wallet.socials if wallet is not None else None
        if data is None or found is None or signins is None:
            return refused(404, "no social sign-in to verify")
        provider = social_provider(found)
        if provider not in signins.providers():
            return refused(404, "no social sign-in to verify")
        try:
            parse_public_key(data["public_key"])
            url = await signins.start(provider, data["session"], hub.clock.now_ms(), key=data["public_key"],
                                      bind=data["bind"])
        except BadPublicKey:
            return refused(400, "not a public key")
        except ServiceError as error:
            log.warning("social verification not started: %s", error)
            return refused(503, "the sign-in cannot start")
        return JSONResponse({"url": url})

    async def social_page(request: Request) -> Response:
        session = request.query_params.get("session", "")
        model = await find(session)
        signins = wallet.socials if wallet is not None else None
        if model is None or signins is None or model.embedded.identity \
                or social_provider(model) not in signins.providers():
            return gone("This sign-in is no longer waiting.")
        provider = social_provider(model)
        # issue 39: the frame looks for the window one press on Connect opened only if there is one
        opened = windows is not None and await windows.recent(session, hub.clock.now_ms())
        data = json.dumps({"session": session, "name": NAMES.get(provider, provider),
                           "window": WINDOW_PATH if opened else ""}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        return page(hub, model.project_id, "Sign in", mode, style(model.theme) + verify_css(),
                    "<div id=verify><div id=social></div></div><p id=state role=status></p>",
                    SOCIAL_SCRIPT + SOCIAL_SIGNIN_SCRIPT % {"data": data}, signin_ancestors(hub, model.project_id))

    return [Route(SIGNIN_PATH, signin_page, methods=["GET"]), Route(SIGNIN_PATH, signin, methods=["POST"]),
            Route(SOCIAL_PATH, social_page, methods=["GET"]),
            Route("/embedded/verify/send", send, methods=["POST"]),
            Route("/embedded/verify/code", code, methods=["POST"]),
            Route("/embedded/verify/social", social, methods=["POST"])]
