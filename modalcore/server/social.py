"""GET /embedded/oidc/callback/{provider}: where a social provider sends the visitor's popup
back (issue 15 §2), the popup an engine-origin frame opened (ConnectingSocial's, or the approval
frame's re-verification; server/verify.py). The sign-in is checked by `SocialSignIns.complete`
(state used once, PKCE, ID token and nonce; a failure sends `SocialFailed` to the session).

Then (issue 27) the callback sets a one-time grant as an HttpOnly, SameSite=Strict cookie of the
engine's origin (never in the HTML) and asks the window that opened the popup, only if it is of
the engine's origin, to confirm with its key; the popup posts that signature with the cookie to
POST /embedded/social/finish, which registers the frame's key for the identity and, when the
session is still signing in with that provider, delivers `SocialSignedIn`. A popup the host page
opened has the host page as opener: it never gets the question nor a confirmation, and the
host's server never holds the cookie. Nothing a page sends reaches a session any other way.
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
from ..rules import limits as L
from ..slices.embedded import SocialFailed, SocialSignedIn
from .frame_page import json_body, refused

if TYPE_CHECKING:
    from .hub import Hub

MAX_PARAM_CHARS = L.SOCIAL_PARAM_CHARS
GRANT_COOKIE = "modalcore_social_grant"
FINISH_PATH = "/embedded/social/finish"
_CLOSE = ("<!doctype html><meta charset=utf-8><title>{title}</title><p>{text}</p>"
          "<script nonce={nonce}>setTimeout(() => window.close(), 300)</script>")
_CONFIRM = """
const state = %(state)s, text = document.getElementById('text');
if (!window.opener) text.textContent = 'Open this sign-in from the wallet to continue.';
else window.opener.postMessage({modalcore: 'social-confirm', state}, location.origin);
window.addEventListener('message', async (e) => {
  if (e.origin !== location.origin || e.source !== window.opener || !e.data || e.data.modalcore !== 'social-confirmed') return;
  const r = await fetch('%(finish)s', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({signature: String(e.data.signature)})});
  window.opener.postMessage({modalcore: 'social-finished', ok: r.ok}, location.origin);
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


def _confirm_page(request: Request, result: SocialResult, token: str) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    script = _CONFIRM % {"state": json.dumps(result.state), "finish": FINISH_PATH}
    body = (f"<!doctype html><meta charset=utf-8><title>Sign-in</title><p id=text>Confirming…</p>"
            f"<script nonce={nonce}>{script}</script>")
    response = HTMLResponse(body, headers={
        "Content-Security-Policy": f"default-src 'none'; script-src 'nonce-{nonce}'; connect-src 'self'", **_HEADERS})
    response.set_cookie(GRANT_COOKIE, token, max_age=L.SOCIAL_PENDING_MS // 1000, path=FINISH_PATH,
                        httponly=True, samesite="strict", secure=request.url.scheme == "https")
    return response


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
            if failure.session:
                runner = await hub.find(failure.session)
                if runner is not None:
                    runner.deliver(SocialFailed(provider, str(failure)))
            return _page("Sign-in failed", f"The sign-in failed: {failure}", 400)
        token = secrets.token_urlsafe(32)
        signins.grant(result, token, now)
        return _confirm_page(request, result, token)

    async def finish(request: Request) -> Response:
        data = await json_body(request, ("signature",))
        token = request.cookies.get(GRANT_COOKIE, "")
        if data is None or not token or len(token) > 64:
            return refused(403, "no sign-in to finish")
        grant = signins.redeem(token, hub.clock.now_ms())
        if grant is None:
            return refused(403, "no sign-in to finish")
        result = grant.result
        _, spki = parse_public_key(result.key)
        if not signature_ok(spki, social_text(result.state), data["signature"]):
            return refused(403, "not the frame that began this sign-in")
        devices.register(grant.identity, result.key, hub.clock.now_ms())
        runner = await hub.find(result.session)
        if runner is not None and not runner.session.model.embedded.identity:
            runner.deliver(SocialSignedIn(provider=result.provider, subject=result.subject, address=result.address,
                                          username=result.username, email=result.email))
        response = JSONResponse({"ok": True})
        response.delete_cookie(GRANT_COOKIE, path=FINISH_PATH)
        return response

    return [Route("/embedded/oidc/callback/{provider}", callback, methods=["GET"]),
            Route(FINISH_PATH, finish, methods=["POST"])]
