"""Passkeys in the engine-origin frames (issue 43 §3; embedded/passkeys.py checks them).

GET  /embedded/passkey?session=S
    The "Add a passkey" frame of a signed-in session (the Account view draws it for an embedded
    account): `navigator.credentials.create` for the engine's host, resident key and user
    verification required.
GET  /embedded/passkey/signin?session=S
    Connect's "Sign in with a passkey" frame (views/connect.py): a discoverable credential
    (`navigator.credentials.get` with no allowCredentials), no email typed: the passkey names the
    account.
POST /embedded/passkey/begin   {session, purpose, public_key}
    A challenge bound to the session: `purpose` "register" (signed in, from a browser whose key
    may approve for the identity: the key signs the registration) or "signin" (the session shows
    Connect, or waits for the email code: EmailVerifyOtp's frame offers "Sign in with a passkey"
    when the email has one). Answers `{challenge, rp_id, user_id, user_name, exclude}`; `user_id`
    is the identity's opaque user handle (embedded/passkeys.py).
POST /embedded/passkey/register   {session, public_key, signature, credential}
    The new passkey, stored for the session's identity once the attestation checks (origin, rp
    id, challenge issued for this session, user verified) and the browser's registered key signed
    `modalcore-passkey\\n{session}\\n{credential id}\\n{challenge}`: what the host can learn
    (session id, frame URL) never adds a passkey.
POST /embedded/passkey/signin   {session, credential, public_key, signature}
    An assertion over this session's sign-in challenge, of the typed email's passkey (from
    EmailVerifyOtp) or of any email account's (from Connect: the credential id names it, the
    user handle must agree): the session is signed in as with an accepted code
    (`PasskeySignedIn`), with no code read, and the frame's key (which signed
    `modalcore-register\n{session}\n{challenge}`) is registered, as a code registers it.

Every POST must come from an engine-origin document (frame_page.from_engine_frame). A refusal is
a typed JSON error (PasskeyRefused's text), changes nothing and logs no traceback.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..embedded.devicekeys import BadPublicKey, parse_public_key, signature_ok
from ..embedded.keys import Identity
from ..embedded.passkeys import (PasskeyError, PasskeyRefused, RelyingParty, approval_challenge, b64, challenge_ok,
                                 challenge_of, issue_challenge)
from ..flows.embedded import passkey_offered, passkey_signin
from ..i18n import ENGLISH, resolve
from ..i18n.catalog import catalogue
from ..views.connect import SIGN_IN_WITH_A_PASSKEY
from ..slices.embedded import PasskeySignedIn, email_identity
from .approval_theme import style
from .frame_page import MAX_ID_CHARS, from_engine_frame, gone, json_body, own_origin, page, refused, signin_ancestors
from .passkey_script import (ADD_SCRIPT, CONNECT_CSS, CONNECT_SIGNIN_SCRIPT, PASSKEY_BUTTON, PASSKEY_CSS, PASSKEY_SCRIPT,
                             SIGNIN_PASSKEY_SCRIPT)

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from ..slices.model import Model
    from .hub import Hub

PATH = "/embedded/passkey"


def registration_text(session: str, credential_id: str, challenge: bytes) -> bytes:
    """What the browser's registered key signs to add a passkey."""
    return f"modalcore-passkey\n{session}\n{credential_id}\n{b64(challenge)}".encode()


def signin_text(session: str, challenge: bytes) -> bytes:
    """What the sign-in frame's key signs with a passkey sign-in: the key registered with it."""
    return f"modalcore-register\n{session}\n{b64(challenge)}".encode()


def relying_party(hub: Hub, request: Request, model: Model) -> RelyingParty:
    """The engine's origin as the visitor's browser sees it (the public URL, else the request's);
    a frame's ceremony may name the session's page as its top origin."""
    public = urlsplit(hub.config.public_url)
    return RelyingParty.of(hub.config.public_url if public.scheme and public.netloc else own_origin(request),
                           (model.origin,) if model.origin else ())


def passkey_refusal(hub: Hub, request: Request, wallet: EmbeddedWallet | None, model: Model, answer: object,
                    text: bytes) -> PasskeyRefused | None:
    """An Approve's passkey assertion (server/approval.py): one of the identity's passkeys, the
    visitor verified, over the SHA-256 of the approval text (session, request, digest, nonce, what
    was seen, the tree's hash), for the engine's origin; None when it counts."""
    if wallet is None:
        return PasskeyRefused.UNKNOWN
    try:
        wallet.passkeys.authenticate(answer, approval_challenge(text), relying_party(hub, request, model),
                                     hub.clock.now_ms(), identity=model.embedded.identity)
    except PasskeyError as error:
        return error.why
    return None


def passkey_evidence(wallet: EmbeddedWallet | None, answer: dict[str, object]) -> str:
    """What the audit log keeps as an Approve's key when a passkey approved: "passkey:" and its
    COSE public key (base64url), against which `audit show` checks the assertion again."""
    key = wallet.passkeys.public_key(str(answer.get("id", ""))) if wallet is not None else None
    return "passkey:" + (b64(key) if key else "")


EMAIL = "email:"


def routes(hub: Hub, secret: bytes, wallet: EmbeddedWallet | None) -> list[Route]:
    async def find(session: object) -> tuple[str, Model] | None:
        """The session as its owner holds it, wherever its socket is (issue 42: events for it
        go through `hub.route`, the session is not taken over)."""
        if wallet is None or not isinstance(session, str) or not session or len(session) > MAX_ID_CHARS:
            return None
        model = await hub.peek(session)
        return None if model is None else (session, model)

    async def add_page(request: Request) -> Response:
        session = request.query_params.get("session", "")
        found = await find(session)
        if found is None or not found[1].embedded.identity:
            return gone("This account is not signed in.")
        model = found[1]
        data = json.dumps({"path": PATH, "session": session}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        body = ("<div id=passkey><button id=add type=button>Add a passkey</button>"
                "<p id=state role=status></p></div>")
        return page(hub, model.project_id, "Add a passkey", mode, style(model.theme) + PASSKEY_CSS + "body{padding:0}", body,
                    PASSKEY_SCRIPT + ADD_SCRIPT % {"data": data})

    async def begin(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may use a passkey")
        data = await json_body(request, ("session", "purpose"))
        found = None if data is None else await find(data["session"])
        if data is None or found is None or data["purpose"] not in ("register", "signin"):
            return refused(404, "no account to use a passkey for")
        assert wallet is not None
        model, session, purpose = found[1], data["session"], data["purpose"]
        identity = model.embedded.identity
        if purpose == "signin" and not passkey_signin(model):
            return refused(404, "this sign-in is no longer waiting")
        if purpose == "register" and not identity:
            return refused(404, "this account is not signed in")
        challenge = issue_challenge(secret, purpose, session, hub.clock.now_ms())
        rp = relying_party(hub, request, model)
        return JSONResponse({"challenge": b64(challenge), "rp_id": rp.rp_id,
                             "user_id": wallet.passkeys.user_handle(identity) if identity else "",
                             "user_name": model.embedded.user_email or identity,
                             "exclude": wallet.passkeys.credential_ids(identity) if identity else []})

    async def register(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may add a passkey")
        data = await json_body(request, ("session", "public_key", "signature"))
        found = None if data is None else await find(data["session"])
        if data is None or found is None or not found[1].embedded.identity:
            return refused(404, "this account is not signed in")
        assert wallet is not None
        session, identity, now = data["session"], found[1].embedded.identity, hub.clock.now_ms()
        try:
            key_id, _ = parse_public_key(data["public_key"])
            credential = data.get("credential")
            challenge = challenge_of(credential, "webauthn.create")
            if not challenge_ok(secret, "register", session, challenge, now):
                return refused(403, "not a challenge of this session")
            assert isinstance(credential, dict)
            text = registration_text(session, str(credential["id"]), challenge)
            if not wallet.devices.verify(identity, key_id, text, data["signature"]):
                return refused(403, "not a browser that may approve for this account")
            credential_id = wallet.passkeys.register(identity, credential, challenge, relying_party(hub, request, found[1]), now)
        except BadPublicKey:
            return refused(400, "not a public key")
        except PasskeyError as error:
            return refused(403, error.why.value)
        return JSONResponse({"ok": True, "id": credential_id})

    async def connect_page(request: Request) -> Response:
        session = request.query_params.get("session", "")
        found = await find(session)
        # the modal draws Connect while it is closed too (behaviour.md "Latency"): the page is
        # served wherever Connect may offer it; what it posts is checked against the view shown
        if found is None or not passkey_offered(found[1]):
            return gone("This sign-in is no longer waiting.")
        model = found[1]
        data = json.dumps({"session": session}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        # the button the visitor reads is in the frame: in the language the modal around it draws
        language = resolve(model.options.locale, model.env.languages)
        label = (catalogue(language).translate(SIGN_IN_WITH_A_PASSKEY) if language != ENGLISH else None) \
            or SIGN_IN_WITH_A_PASSKEY
        button = PASSKEY_BUTTON.replace(SIGN_IN_WITH_A_PASSKEY, html.escape(label))
        return page(hub, model.project_id, SIGN_IN_WITH_A_PASSKEY, mode,
                    style(model.theme) + PASSKEY_CSS + CONNECT_CSS + "body{padding:0}", "<div id=passkey>" + button + "</div>",
                    PASSKEY_SCRIPT + CONNECT_SIGNIN_SCRIPT % {"data": data} + SIGNIN_PASSKEY_SCRIPT,
                    signin_ancestors(hub, model.project_id))

    async def signin(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may sign in")
        data = await json_body(request, ("session", "public_key", "signature"))
        found = None if data is None else await find(data["session"])
        waiting = "" if found is None else passkey_signin(found[1])
        if data is None or found is None or not waiting:
            return refused(404, "this sign-in is no longer waiting")
        assert wallet is not None
        session, model = found
        now = hub.clock.now_ms()
        try:
            _, spki = parse_public_key(data["public_key"])
            credential = data.get("credential")
            challenge = challenge_of(credential, "webauthn.get")
            if not challenge_ok(secret, "signin", session, challenge, now):
                raise PasskeyError(PasskeyRefused.CHALLENGE)  # another session's, or expired
            # the frame's key, registered with the sign-in as with a code (verify.py), must be
            # one the poster holds
            if not signature_ok(spki, signin_text(session, challenge), data["signature"]):
                return refused(403, "not signed by the key to register")
            # EmailVerifyOtp: the typed email's passkey; Connect: the account the credential
            # names (passkeys sign in email accounts; a social account signs in with its provider)
            identity = email_identity(model.embedded.email) if waiting == "email" else wallet.passkeys.owner(credential)
            if identity is None or not identity.startswith(EMAIL):
                raise PasskeyError(PasskeyRefused.UNKNOWN)
            wallet.passkeys.authenticate(credential, challenge, relying_party(hub, request, model), now,
                                         identity=identity)
        except BadPublicKey:
            return refused(400, "not a public key")
        except PasskeyError as error:
            return refused(403, error.why.value)
        email = identity.removeprefix(EMAIL)
        address = wallet.vault.get_or_create(Identity("email", email), now)
        wallet.devices.register(identity, data["public_key"], now)
        await hub.route(session, PasskeySignedIn(email=email, address=address, key=data["public_key"]))
        return JSONResponse({"ok": True})

    return [Route(PATH, add_page, methods=["GET"]), Route(PATH + "/begin", begin, methods=["POST"]),
            Route(PATH + "/register", register, methods=["POST"]), Route(PATH + "/signin", signin, methods=["POST"]),
            Route(PATH + "/signin", connect_page, methods=["GET"])]
