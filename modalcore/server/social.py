"""GET /embedded/oidc/callback/{provider}: where a social provider sends the visitor's popup
back (issue 15 §2). The sign-in is checked by `SocialSignIns.complete` (state used once, PKCE,
ID token and nonce); then `SocialSignedIn` (or `SocialFailed`) goes to the session that started
it, and the popup page closes itself. Nothing a page sends reaches a session any other way."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ..embedded.social import SocialFailure, SocialSignIns
from ..rules import limits as L
from ..slices.embedded import SocialFailed, SocialSignedIn

if TYPE_CHECKING:
    from .hub import Hub

MAX_PARAM_CHARS = L.SOCIAL_PARAM_CHARS
_CLOSE = ("<!doctype html><meta charset=utf-8><title>{title}</title><p>{text}</p>"
          "<script nonce={nonce}>setTimeout(() => window.close(), 300)</script>")


def _page(title: str, text: str, status: int = 200) -> HTMLResponse:
    nonce = "close"
    return HTMLResponse(_CLOSE.format(title=html.escape(title), text=html.escape(text), nonce=nonce),
                        status_code=status,
                        headers={"Content-Security-Policy": f"default-src 'none'; script-src 'nonce-{nonce}'",
                                 "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


def routes(hub: Hub, signins: SocialSignIns) -> list[Route]:
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
        runner = await hub.find(result.session)
        if runner is None:
            return _page("Sign-in", "This sign-in's session has ended.", 404)
        runner.deliver(SocialSignedIn(provider=provider, subject=result.subject, address=result.address,
                                      username=result.username, email=result.email))
        return _page("Signed in", "You are signed in. This window closes itself.")

    return [Route("/embedded/oidc/callback/{provider}", callback, methods=["GET"])]
