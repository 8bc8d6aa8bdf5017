"""GET /embedded/oidc/callback/{provider}: where a social provider sends the visitor's popup
back (issue 15 §2), the popup an engine-origin frame opened (ConnectingSocial's, or the approval
frame's re-verification; server/verify.py). The sign-in is checked by `SocialSignIns.complete`
(state used once, PKCE, ID token and nonce; a failure sends `SocialFailed` to the session).

Then (issue 27, issue 38) the callback's page holds a one-time grant in its own script and asks
the window that opened the popup, only if it is of the engine's origin, to confirm: that frame
answers only for the state it began, with its key's signature over it and the flow value it made
when it began (`bind`, kept in the frame's script only); the popup posts grant, value and
signature to POST /embedded/social/finish, which registers the frame's key for the identity and,
when the session is still signing in with that provider, delivers `SocialSignedIn`.

Why the grant is in the page and not a cookie: SameSite is no boundary between origins of one
site (a host on app.example.com sends wallet.example.com's Strict cookies along), and cookies
ignore ports (a host on 127.0.0.1:8000 receives those of 127.0.0.1:8765). The callback page is
seen only by the popup the provider redirected (its URL carries the provider's one-time code,
which only that popup receives), and another origin cannot read it. The finish must come from an
engine-origin document (`Sec-Fetch-Site: same-origin`, Origin the engine's). A sign-in the host's
server began for its own key ends in a popup whose opener is the host page: never confirmed, its
grant never leaves the popup. Nothing a page sends reaches a session any other way.

Issue 39: the popup may be opened by the host page itself (one press on Connect opens
server/social_window.py's page, which ConnectingSocial's frame takes). That frame says hello to
the popup once it shows this page (messages of the engine's origin only); the page asks it to
confirm, and it answers only for the state it began, so a flow the host's server began and
navigated this popup to is still never confirmed.
"""

from __future__ import annotations

import html
import json
import secrets
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..embedded.devicekeys import DeviceKeys, parse_public_key, signature_ok
from ..embedded.social import SocialFailure, SocialResult, SocialSignIns
from ..embedded.social_notes import NotesUnavailable
from ..rules import limits as L
from ..slices.embedded import SocialFailed, SocialSignedIn
from .frame_page import KEY_SCRIPT, KEY_TEXT_JSON, from_engine_frame, json_body, refused
from .key_window import SERVE_SCRIPT, serve_data

if TYPE_CHECKING:
    from .hub import Hub

MAX_PARAM_CHARS = L.SOCIAL_PARAM_CHARS
FINISH_PATH = "/embedded/social/finish"
_CLOSE = ("<!doctype html><meta charset=utf-8><title>{title}</title><p>{text}</p>"
          "<script nonce={nonce}>setTimeout(() => window.close(), 300)</script>")
_CONFIRM = """
const state = %(state)s, grant = %(grant)s, text = document.getElementById('text');
// the frame that began this sign-in: the window that opened this popup (its own button), or a
// frame that took the popup the page around it opened (issue 39, server/social_window.py) and
// says hello once the popup shows this page; only engine-origin windows count
const frames = new Set();
let answered = false;
if (!window.opener) text.textContent = 'Open this sign-in from the wallet to continue.';
else window.opener.postMessage({modalcore: 'social-confirm', state}, location.origin);
window.addEventListener('message', async (e) => {
  if (e.origin !== location.origin || !e.source || !e.data) return;
  if (e.data.modalcore === 'social-hello') {
    frames.add(e.source);
    e.source.postMessage({modalcore: 'social-confirm', state}, location.origin);
    return;
  }
  if (answered || e.data.modalcore !== 'social-confirmed' || (e.source !== window.opener && !frames.has(e.source))) return;
  answered = true;
  const frame = e.source;
  const r = await fetch('%(finish)s', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({grant, bind: String(e.data.bind), signature: String(e.data.signature)})});
  frame.postMessage({modalcore: 'social-finished', ok: r.ok}, location.origin);
  if (r.ok && keyServed) {
    // this window kept the frame's key (its browser gives the frame no storage): it stays, as the
    // key window the wallet's frames find by name
    text.textContent = W.shown;
    window.name = KEY_TEXT.name;
    location.replace(KEY_TEXT.path);
    return;
  }
  text.textContent = r.ok ? 'You are signed in. This window closes itself.' : 'The sign-in failed.';
  if (r.ok) setTimeout(() => window.close(), 300);
});
"""
_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}


def social_text(state: str) -> bytes:
    """What the approval frame signs to confirm the re-verification it began."""
    return f"modalcore-social\n{state}".encode()


def _page(title: str, text: str, status: int = 200) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(_CLOSE.format(title=html.escape(title), text=html.escape(text), nonce=nonce),
                        status_code=status,
                        headers={"Content-Security-Policy": f"default-src 'none'; script-src 'nonce-{nonce}'",
                                 **_HEADERS})


def _confirm_page(result: SocialResult, token: str) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    # the key window's service too: where the frame has no storage, this window kept its key
    keys = f"const KEY_TEXT = {KEY_TEXT_JSON};{KEY_SCRIPT}{SERVE_SCRIPT % {'data': serve_data()}}"
    script = keys + _CONFIRM % {"state": json.dumps(result.state), "grant": json.dumps(token), "finish": FINISH_PATH}
    body = (f"<!doctype html><meta charset=utf-8><title>Sign-in</title><p id=text>Confirming…</p>"
            f"<script nonce={nonce}>{script}</script>")
    return HTMLResponse(body, headers={
        "Content-Security-Policy": f"default-src 'none'; script-src 'nonce-{nonce}'; connect-src 'self'", **_HEADERS})


def routes(hub: Hub, signins: SocialSignIns, devices: DeviceKeys) -> list[Route]:
    async def callback(request: Request) -> Response:
        provider = request.path_params["provider"]
        if provider not in signins.providers():
            return _page("Sign-in", "This sign-in is not configured.", 404)
        params = {k: v[:MAX_PARAM_CHARS] for k, v in request.query_params.items()}
        now = hub.clock.now_ms()
        try:
            result = await signins.complete(provider, params, now)
        except SocialFailure as failure:
            if failure.session:  # told on the host holding its socket (issue 42)
                await hub.route(failure.session, SocialFailed(provider, str(failure)))
            return _page("Sign-in failed", f"The sign-in failed: {failure}", 400)
        token = secrets.token_urlsafe(32)
        try:
            await signins.grant(result, token, now)
        except NotesUnavailable:
            return _page("Sign-in failed", "The sign-in could not be kept. Close this window and try again.", 503)
        return _confirm_page(result, token)

    async def finish(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own page may finish a sign-in")
        data = await json_body(request, ("grant", "bind", "signature"))
        if data is None or not data["grant"] or len(data["grant"]) > 64:
            return refused(403, "no sign-in to finish")
        now = hub.clock.now_ms()
        grant = await signins.granted(data["grant"], now)
        if grant is None:
            return refused(403, "no sign-in to finish")
        result = grant.result
        _, spki = parse_public_key(result.key)
        if not result.bound_to(data["bind"]) or not signature_ok(spki, social_text(result.state), data["signature"]):
            return refused(403, "not the frame that began this sign-in")
        if await signins.redeem(data["grant"], now) is None:  # spent meanwhile
            return refused(403, "no sign-in to finish")
        devices.register(grant.identity, result.key, now)
        model = await hub.peek(result.session)  # wherever its socket is (issue 42)
        if model is not None and not model.embedded.identity:
            await hub.route(result.session, SocialSignedIn(provider=result.provider, subject=result.subject,
                                                           address=result.address, username=result.username,
                                                           email=result.email, key=result.key))
        return JSONResponse({"ok": True})

    return [Route("/embedded/oidc/callback/{provider}", callback, methods=["GET"]),
            Route(FINISH_PATH, finish, methods=["POST"])]
