"""Continue on another device (issue 44 item 1): the phone's side, pages of the engine's origin.

GET  /continue/{session}.{token}
    The page the QR code opens on the phone (framed by nobody). A link this session does not
    offer, one expired or one claimed already gets a refusal page (its reason in `data-refusal`)
    and changes nothing. Otherwise the page makes its own key (frame_page.py KEY_SCRIPT: WebCrypto,
    not extractable) and claims the link with its public half.

POST /continue/claim    {link, public_key}
    Only from a page of the engine's origin (`Sec-Fetch-Site: same-origin`, frame_page.py). The
    session decides (`slices/handoff.claim_refusal`, pure): accepted, it shows the short code
    both screens show; refused, `{error}` is the typed reason (`HandoffRefusal`), status 403 or 410.

POST /continue/status   {link, public_key}
    What the phone shows next: `waiting` (the claim is being taken), `confirm` with the code,
    `linked` with the request waiting for approval (its id, or none), or `refused` with the reason
    (a phone whose key is not the one the desktop confirmed, e.g. a second scan; 403 or 410).

POST /continue/begin    {link | session, public_key, request}   /   POST /continue/approve  {..., signature}
    While linked, the request waiting is approved on the phone as in the approval frame
    (approval.py): a fresh challenge, the approval tree's bytes drawn by the page, and Approve
    counts only with the signature of the phone's key, the one the desktop confirmed, over
    `approval_text(...)` with `seen` = "phone". Then `ApprovalDecided` is delivered, as the frame's.
    The phone's approval frame inside its modal (handoff_frame.py) names the session rather than
    the link (the link is in no tree); either way only the linked key's signature approves.

Nothing here is secret in a GET's HTML: the link is in the URL (single-use, 2 minutes, useless
without the code confirmed on the desktop), the page holds only the session id it came with.
"""

from __future__ import annotations

import hmac
import html
import json
import logging
import secrets
from urllib.parse import urlsplit
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..core.services import Service, ServiceContext, serve
from ..services.domain.handles import HANDOFF_TOKEN, HandoffArgs, HandoffTokenResult
from ..embedded.approval_tree import request_digest, tree_hash
from ..embedded.devicekeys import BadPublicKey, parse_public_key, signature_ok
from ..i18n import direction
from ..slices.embedded import ApprovalDecided
from ..slices.handoff import HandoffRefusal, PhoneClaimed, claim_refusal, link_digest, link_token, linked_key
from .handoff_code import keep_code
from .approval import b64url, approval_evidence, approval_text, issue_nonce, nonce_ok, tree_bytes
from .approval_theme import style
from . import handoff_texts as T
from .frame_page import MAX_ID_CHARS, from_engine_frame, json_body, own_origin, page, refused

if TYPE_CHECKING:
    from ..slices.model import Model
    from .hub import Hub

log = logging.getLogger(__name__)

PATH = "/continue"
SEEN = "phone"  # what an approval on the phone says it was shown as (approval_text's `seen`)
MAX_LINK_CHARS = MAX_ID_CHARS + 64
_HASH_CHARS = 64
REFUSED_TEXT = {
    HandoffRefusal.UNKNOWN: T.UNKNOWN_LINK,
    HandoffRefusal.EXPIRED: T.EXPIRED_LINK,
    HandoffRefusal.USED: T.USED_LINK,
    HandoffRefusal.FOREIGN_ORIGIN: T.FOREIGN_LINK,
}
_STATUS = {HandoffRefusal.EXPIRED: 410, HandoffRefusal.USED: 410}

_CSS = """
body{margin:0;font:16px/1.45 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
header,main{padding:20px 24px 0;max-width:420px;margin:0 auto}
.title{font-size:14px;opacity:.7}h1{font-size:20px;margin:0 0 8px}.who{font-size:13px;opacity:.7;margin-bottom:12px}
#code{font-size:36px;letter-spacing:4px;font-weight:600;margin:16px 0}
"""

_SCRIPT = """
const S = %(data)s;
const state = document.getElementById('state'), code = document.getElementById('code');
let key = null, done = false, joined = false;
const NONCE = document.currentScript ? document.currentScript.nonce : '';
const say = (text) => { state.textContent = text; };
async function poll() {
  if (done) return;
  const r = await post(S.path + '/status', {link: S.link, public_key: key.spki});
  const d = r.data || {};
  if (d.state === 'refused') { done = true; document.body.dataset.refusal = d.error; say(d.text); code.textContent = ''; return; }
  if (d.state === 'confirm') { code.textContent = d.code.slice(0, 3) + ' ' + d.code.slice(3); say(S.t.check); }
  if (d.state === 'linked') {
    code.textContent = '';
    if (!joined) { joined = true; companion().catch(() => undefined); }
    say(S.t.connected);  // a request waiting is approved inside the modal (handoff_frame.py)
  }
  setTimeout(poll, 800);
}
// the linked phone draws the session's modal (PROTOCOL.md, "Companion"): a nonce for this key,
// signed, and the modal joins as the session's second screen (server/companion.py)
// A nonce joins once: every later socket of the modal (after a drop) asks a fresh one.
async function signedJoin() {
  const r = await post(S.path + '/companion', {link: S.link, public_key: key.spki});
  if (!r.ok) return null;
  const signature = await signText(key.pair, ['modalcore-companion', r.data.session, r.data.nonce].join('\\n'));
  return {session: r.data.session, public_key: key.spki, nonce: r.data.nonce, signature};
}
async function companion() {
  const first = await signedJoin();
  if (!first) return;
  const script = document.createElement('script');
  script.src = S.modal; script.nonce = NONCE;
  script.onload = () => window.ModalCore.createModal({projectId: S.project, networks: S.networks,
    engineUrl: location.origin, embedded: true, container: document.getElementById('modal'),
    companion: first, renewCompanion: signedJoin});
  document.head.appendChild(script);
}
(async () => {
  key = await deviceKey();
  const r = await post(S.path + '/claim', {link: S.link, public_key: key.spki});
  if (!r.ok) { done = true; document.body.dataset.refusal = r.data.error || 'refused'; say(r.data.text || S.t.invalid); return; }
  say(S.t.connecting);
  poll();
})().catch(() => say(S.t.nokey));
"""


def engine_origin(hub: Hub, project_id: str) -> str:
    """The engine's origin a link names: the configured public URL's, else the one the project's
    pages reached the engine at."""
    public = urlsplit(hub.config.public_url)
    if public.scheme and public.netloc:
        return f"{public.scheme}://{public.netloc}"
    return hub.engine_urls.get(project_id, "")


def token_service(hub: Hub) -> Service[HandoffArgs, HandoffTokenResult]:
    """`handoff.token`: the link's randomness, a command's result (update draws none itself): a
    nonce, which the session keeps; the token the link carries is derived from it with the
    engine's link key (slices/handoff.link_token), so the saved session never holds it."""

    async def run(ctx: ServiceContext | None, args: HandoffArgs) -> HandoffTokenResult:
        nonce = secrets.token_urlsafe(24)
        if args.typed and ctx is not None:  # offered on a phone: its code to type, found by the computer's page
            digest = link_digest(ctx.session_id, link_token(ctx.session_id, nonce))
            await keep_code(hub.store, ctx.session_id, nonce, digest, hub.clock.now_ms())
        return {"nonce": nonce, "base": engine_origin(hub, ctx.project_id if ctx else "")}

    return serve(HANDOFF_TOKEN, run)


def split_link(link: str) -> tuple[str, str] | None:
    """(session id, token) of a link's last part, when it has that shape."""
    if not link or len(link) > MAX_LINK_CHARS:
        return None
    session, dot, token = link.rpartition(".")
    if not dot or not session or not token or len(session) > MAX_ID_CHARS:
        return None
    return session, token


async def session_of_link(hub: Hub, link: str) -> tuple[str, Model, str] | None:
    """(session id, the session as its owner holds it, the link's digest): the phone's requests
    reach any host, the session's events go through `hub.route` to its socket's (issue 42)."""
    parts = split_link(link)
    if parts is None:
        return None
    model = await hub.peek(parts[0])
    if model is None:
        return None
    return parts[0], model, link_digest(parts[0], parts[1])


def _language(request: Request, model: Model | None) -> str:
    """The session's language; for a link of no session, the phone's (Accept-Language)."""
    return T.language_of(model) if model is not None else T.accepted(request.headers.get("accept-language", ""))


def _text(why: HandoffRefusal, language: str, to: str) -> str:
    """The refusal's words; an expired link offered on a phone says to make one there."""
    text = T.EXPIRED_ON_PHONE if why is HandoffRefusal.EXPIRED and to == "computer" else REFUSED_TEXT[why]
    return T.word(text, language)


def _refusal(why: HandoffRefusal, language: str, to: str = "phone") -> JSONResponse:
    log.info("continue-on-phone link refused: %s", why.value)
    return JSONResponse({"error": why.value, "text": _text(why, language, to)},
                        status_code=_STATUS.get(why, 403))


def _refused_state(why: HandoffRefusal, language: str, to: str = "phone") -> JSONResponse:
    """What the phone's status poll reads when this phone is not (or no longer) the one claiming."""
    return JSONResponse({"state": "refused", "error": why.value, "text": _text(why, language, to)},
                        status_code=_STATUS.get(why, 403))


def _refusal_page(why: HandoffRefusal, language: str, to: str = "phone") -> HTMLResponse:
    log.info("continue-on-phone page refused: %s", why.value)
    text = html.escape(_text(why, language, to))
    return HTMLResponse(f"<!doctype html><html lang={language} dir={direction(language)}>"
                        f"<meta name=viewport content='width=device-width,initial-scale=1'>"
                        f"<body data-refusal={why.value}><p id=state role=alert>{text}</p>",
                        status_code=_STATUS.get(why, 404),
                        headers={"Content-Security-Policy": "frame-ancestors 'none'; default-src 'none'",
                                 "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


def _claim(digest: str, public_key: str, origin: str) -> PhoneClaimed:
    return PhoneClaimed(digest=digest, public_key=public_key, origin=origin)


def _names_session(data: dict[str, object]) -> bool:
    """A body names the link or the session, one of them, as a bounded string."""
    link, session = data.get("link"), data.get("session")
    if (link is None) == (session is None):
        return False
    named = link if link is not None else session
    return isinstance(named, str) and 0 < len(named) <= MAX_LINK_CHARS


def links_key(model: Model, digest: str, public_key: str) -> bool:
    """The phone of `public_key`, which claimed the link of `digest`, is linked now: for the
    account signed in now (`linked_key`: a link for another account, or for no account while one
    is signed in, links nothing)."""
    return bool(public_key) and linked_key(model) == public_key and digest in model.handoff.spent


def routes(hub: Hub, secret: bytes) -> list[Route]:
    async def show(request: Request) -> Response:
        link = request.path_params["link"]
        found = await session_of_link(hub, link)
        if found is None:
            return _refusal_page(HandoffRefusal.UNKNOWN, _language(request, None))
        _, model, digest = found
        language = T.language_of(model)
        why = claim_refusal(model, _claim(digest, "", model.handoff.base), hub.clock.now_ms())
        if why is not None:
            return _refusal_page(why, language, model.handoff.to)
        session = split_link(link)
        assert session is not None
        computer = model.handoff.to == "computer"  # offered on a phone: this page is the computer's
        data = json.dumps({"path": PATH, "link": link, "session": session[0], "seen": SEEN,
                           "project": model.project_id, "modal": "/static/modal.js",
                           "networks": list(model.options.networks),
                           "t": T.words(T.COMPUTER_SCRIPT if computer else T.PHONE_SCRIPT, language)}
                          ).replace("<", "\\u003c")
        title = T.COMPUTER_TITLE if computer else T.TITLE
        say = {name: html.escape(T.word(text, language)) for name, text in
               (("title", title), ("connecting", T.CONNECTING))}
        # the status above; the session's modal below (the approval is drawn inside it)
        body = (f"<header><div class=title>{say['title']}</div><div id=code aria-live=polite></div>"
                f"<p id=state role=status>{say['connecting']}</p></header><div id=modal></div>")
        mode = "light" if model.theme.mode == "light" else "dark"
        script = _SCRIPT % {"data": data}
        return page(hub, model.project_id, say["title"], mode, style(model.theme) + _CSS, body,
                    script, ancestors="'none'", viewport=True, language=language, modal=True)

    async def claim(request: Request) -> Response:
        data = await json_body(request, ("link", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        if not from_engine_frame(request, hub.config.public_url):
            return _refusal(HandoffRefusal.FOREIGN_ORIGIN, _language(request, None))
        try:
            parse_public_key(data["public_key"])
        except BadPublicKey:
            return refused(400, "not a public key")
        found = await session_of_link(hub, data["link"])
        if found is None:
            return _refusal(HandoffRefusal.UNKNOWN, _language(request, None))
        session, model, digest = found
        msg = _claim(digest, data["public_key"], request.headers.get("origin") or own_origin(request))
        why = claim_refusal(model, msg, hub.clock.now_ms())
        if why is not None:
            return _refusal(why, T.language_of(model), model.handoff.to)
        await hub.route(session, msg)  # the session decides again, in order: of two claims at once, one wins
        return JSONResponse({"ok": True}, status_code=202)

    async def status(request: Request) -> Response:
        data = await json_body(request, ("link", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        found = await session_of_link(hub, data["link"])
        if found is None:
            return _refused_state(HandoffRefusal.UNKNOWN, _language(request, None))
        _, model, digest = found
        state = model.handoff
        if state.phone_key == data["public_key"] and digest in state.spent:
            if state.status == "confirm":
                return JSONResponse({"state": "confirm", "code": state.code})
            if state.status == "linked":
                waiting = model.embedded.request
                eid = waiting.eid if waiting is not None and not waiting.signing else None
                return JSONResponse({"state": "linked", "request": eid})
        if state.status == "offered" and state.digest == digest:
            return JSONResponse({"state": "waiting"})
        why = claim_refusal(model, _claim(digest, data["public_key"], state.base), hub.clock.now_ms())
        return _refused_state(why or HandoffRefusal.USED, T.language_of(model), state.to)

    async def _linked_request(data: dict[str, object]) -> tuple[str, Model] | None:
        """The session whose request `data` names waits for the phone of `data`'s key: named by
        the link (the phone's page) or by the session (its approval frame, handoff_frame.py)."""
        link, key, eid = data.get("link"), data.get("public_key"), data.get("request")
        if not isinstance(key, str) or not isinstance(eid, str):
            return None
        found: tuple[str, Model] | None
        if isinstance(link, str):
            by_link = await session_of_link(hub, link)
            found = by_link[:2] if by_link is not None and links_key(*by_link[1:], key) else None
        else:
            found = await _named_session(data.get("session"))
            found = found if found is not None and linked_key(found[1]) == key else None
        if found is None:
            return None
        session, model = found
        waiting = model.embedded.request
        if waiting is None or waiting.eid != eid or waiting.signing:
            return None
        return session, model

    async def _named_session(session: object) -> tuple[str, Model] | None:
        if not isinstance(session, str) or not session or len(session) > MAX_ID_CHARS:
            return None
        model = await hub.peek(session)
        return None if model is None else (session, model)

    async def begin(request: Request) -> Response:
        data = await json_body(request, ("public_key", "request"))
        if data is None or not _names_session(data):
            return refused(400, "malformed body")
        found = await _linked_request(data)
        if found is None:
            return refused(404, "no request waits for this phone")
        _, model = found
        assert model.embedded.request is not None
        return JSONResponse({"nonce": issue_nonce(secret, model.session_id, data["request"], hub.clock.now_ms()),
                             "digest": request_digest(model.embedded.request), "tree": b64url(tree_bytes(model))})

    async def approve(request: Request) -> Response:
        data = await json_body(request, ("public_key", "request", "nonce", "tree_hash", "signature"))
        if data is None or not _names_session(data) or not isinstance(data.get("approve"), bool):
            return refused(400, "malformed body")
        if not from_engine_frame(request, hub.config.public_url):
            return _refusal(HandoffRefusal.FOREIGN_ORIGIN, _language(request, None))
        found = await _linked_request(data)
        if found is None:
            return refused(404, "no request waits for this phone")
        _, model = found
        waiting = model.embedded.request
        assert waiting is not None
        session, eid, nonce, shown = model.session_id, data["request"], data["nonce"], data["tree_hash"]
        if not nonce_ok(secret, session, eid, nonce, hub.clock.now_ms()):
            return refused(403, "not a challenge of this request")
        tree = tree_bytes(model)
        if len(shown) != _HASH_CHARS or not hmac.compare_digest(shown, tree_hash(tree)):
            return refused(403, "the approval shown is not the one waiting")
        digest = request_digest(waiting)
        text = approval_text(session, eid, digest, nonce, data["approve"], SEEN, shown)
        _, spki = parse_public_key(data["public_key"])
        if not signature_ok(spki, text, data["signature"]):
            return refused(403, "not the key of the phone linked to this session")
        evidence = approval_evidence({**data, "seen": SEEN}, tree, shown, digest) if data["approve"] else ""
        await hub.route(session, ApprovalDecided(eid=eid, approve=data["approve"], evidence=evidence))
        return JSONResponse({"ok": True})

    return [Route(PATH + "/claim", claim, methods=["POST"]), Route(PATH + "/status", status, methods=["POST"]),
            Route(PATH + "/begin", begin, methods=["POST"]), Route(PATH + "/approve", approve, methods=["POST"]),
            Route(PATH + "/{link}", show, methods=["GET"])]
