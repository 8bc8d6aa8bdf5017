"""Security headers on every HTTP response of the engine (issue 27 item 5), in one place.

Every response: `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`. Every HTML
response also: a `Content-Security-Policy` with `frame-ancestors`: a page that sets its own
(the approval frame lists the project's origins, the OpenID callback its script nonce) keeps it,
with `frame-ancestors 'none'` added when it has none; a page without one gets `PAGE_CSP`.
A header a route set itself is never replaced: the pages whose own form posts back (the local
onramp's order, the operator sign-in) set `Referrer-Policy: same-origin`, since under
`no-referrer` the browser sends `Origin: null` with the post and their origin checks refuse it.

Plain ASGI (not BaseHTTPMiddleware): the response streams through untouched, and the `/ws`
socket never passes here (EngineApp hands it to the endpoint first).
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# the engine's own pages (the local onramp, /dev/mail): inline styles and same-origin forms only
PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
# the demo dApp page (a test asset, `demo_page`): its scripts, sockets and frames run; nobody frames it
DEMO_PAGE_CSP = "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
NOSNIFF = "nosniff"
REFERRER_POLICY = "no-referrer"


def secure(headers: MutableHeaders) -> None:
    """Add what is missing to one response's headers."""
    headers.setdefault("X-Content-Type-Options", NOSNIFF)
    headers.setdefault("Referrer-Policy", REFERRER_POLICY)
    if not headers.get("content-type", "").lower().startswith("text/html"):
        return
    policy = headers.get("content-security-policy")
    if policy is None:
        headers["Content-Security-Policy"] = PAGE_CSP
    elif "frame-ancestors" not in policy:
        headers["Content-Security-Policy"] = f"{policy.rstrip('; ')}; frame-ancestors 'none'"


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                secure(MutableHeaders(scope=message))
            await send(message)

        await self.app(scope, receive, send_secured)
