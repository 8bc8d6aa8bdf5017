"""A browser's way to the operator pages: a login form that takes the operator token and sets a
cookie, since a browser cannot send the `Authorization: Bearer` header by itself.

The cookie holds no token: `<expiry>.<HMAC-SHA256(operator token, expiry)>`, HttpOnly, SameSite=
Strict, Path=/, Secure over https; a changed token ends every cookie. The login POST is
CSRF-safe: it must carry the form's one-time value, equal to the HttpOnly SameSite=Strict cookie
set with the form (double submit), and a browser's `Origin`/`Sec-Fetch-Site`, when sent, must
be this origin. Tokens and values are compared in constant time; an address that sent too many
wrong tokens gets 429 before its token is compared (operator_limit.py).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from html import escape
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .config import EngineConfig
from .operator_limit import client_address, too_many, wrong_tokens
from .origins import parse_origin

SESSION_COOKIE = "modalcore_operator"
CSRF_COOKIE = "modalcore_operator_csrf"
SESSION_S = 12 * 3600
MAX_FORM_BYTES = 4096
DEFAULT_NEXT = "/operator/analytics"

log = logging.getLogger(__name__)


def _mac(token: str, expiry: int) -> str:
    return hmac.new(token.encode(), f"modalcore-operator:{expiry}".encode(), hashlib.sha256).hexdigest()


def session_value(token: str, now_s: float) -> str:
    expiry = int(now_s) + SESSION_S
    return f"{expiry}.{_mac(token, expiry)}"


def cookie_is_valid(request: Request, token: str) -> bool:
    value = request.cookies.get(SESSION_COOKIE, "")
    expiry_text, _, mac = value.partition(".")
    if not expiry_text.isdigit() or len(expiry_text) > 12 or not mac:
        return False
    expiry = int(expiry_text)
    return expiry > time.time() and hmac.compare_digest(mac.encode(), _mac(token, expiry).encode())


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _safe_next(value: str) -> str:
    """Only this engine's operator pages (no other host, no scheme-relative `//`)."""
    if (value.startswith("/operator/") and "//" not in value and "\\" not in value
            and not value.startswith("/operator/login")):
        return value
    return DEFAULT_NEXT


def login_page(request: Request, *, status: int = 401, message: str = "",
               target: str = "") -> Response:
    """The form (401: the page asked for is not shown), with a fresh CSRF value; after signing
    in, the browser goes to `target` (default: the page asked for, or `?next=`)."""
    csrf = secrets.token_urlsafe(24)
    target = _safe_next(target or request.query_params.get("next", request.url.path))
    note = f"<p role='alert' class='bad'>{escape(message)}</p>" if message else ""
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Operator sign-in</title>"
        "<style>body{font:14px system-ui;margin:2em}label,input,button{display:block;margin:.4em 0}"
        "input{width:24em;max-width:100%}.bad{color:#b3261e}</style></head><body>"
        "<h1>Operator sign-in</h1>"
        f"{note}<form method='post' action='/operator/login'>"
        "<label for='token'>Operator token</label>"
        "<input id='token' name='token' type='password' autocomplete='current-password' required>"
        f"<input type='hidden' name='csrf' value='{escape(csrf)}'>"
        f"<input type='hidden' name='next' value='{escape(target)}'>"
        "<button type='submit'>Sign in</button></form></body></html>"
    )
    # the form's post must carry its Origin: under the engine's default `no-referrer` the browser
    # sends `Origin: null`, which `_same_origin` refuses (headers.py keeps a route's own)
    response = HTMLResponse(page, status_code=status, headers={"Referrer-Policy": "same-origin"})
    response.set_cookie(CSRF_COOKIE, csrf, max_age=600, path="/operator", httponly=True,
                        samesite="strict", secure=_secure(request))
    return response


def _same_origin(request: Request) -> bool:
    """A browser's `Origin` names this engine as the request reached it: scheme (uvicorn takes
    it from `X-Forwarded-Proto` of a proxy it trusts) and the `Host` header, port included,
    compared as origins (`HTTP://Example.com:80` is `http://example.com`). A proxy that drops
    the port from `Host` (nginx's `$host`; pass `$http_host`) is named in the log: every
    browser's sign-in would fail behind it."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    header = request.headers.get("origin")
    if header is None or header == "null":
        return header is None
    own_text = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin, own = parse_origin(header), parse_origin(own_text)
    if origin is not None and origin == own:
        return True
    if origin is not None and own is not None and (origin.scheme, origin.host) == (own.scheme, own.host):
        log.warning("operator sign-in refused: the page's origin %s is not this engine's %s as "
                    "the request reached it; a proxy in front must pass the Host header with its "
                    "port (nginx: proxy_set_header Host $http_host)", header[:200], own_text[:200])
    return False


async def _form(request: Request) -> dict[str, str] | None:
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=8)
    return {key: values[0] for key, values in fields.items()}


async def login(request: Request) -> Response:
    config: EngineConfig = request.app.state.config
    if not config.operator_token:
        return JSONResponse({"error": "not_found"}, status_code=404)
    form = await _form(request)
    csrf_cookie = request.cookies.get(CSRF_COOKIE, "")
    if (form is None or not _same_origin(request) or not csrf_cookie
            or not hmac.compare_digest(form.get("csrf", "").encode(), csrf_cookie.encode())):
        return JSONResponse({"error": "forbidden"}, status_code=403)
    limiter, address = wrong_tokens(request), client_address(request)
    if wait := limiter.wait_s(address):
        return too_many(wait)
    if not hmac.compare_digest(form.get("token", "").encode(), config.operator_token.encode()):
        limiter.failed(address)
        return login_page(request, message="That is not the operator token.",
                          target=form.get("next", ""))
    response = RedirectResponse(_safe_next(form.get("next", "")), status_code=303)
    response.set_cookie(SESSION_COOKIE, session_value(config.operator_token, time.time()),
                        max_age=SESSION_S, path="/", httponly=True, samesite="strict",
                        secure=_secure(request))
    response.delete_cookie(CSRF_COOKIE, path="/operator")
    return response


async def login_form(request: Request) -> Response:
    config: EngineConfig = request.app.state.config
    if not config.operator_token:
        return JSONResponse({"error": "not_found"}, status_code=404)
    return login_page(request, status=200)


def routes() -> list[Route]:
    return [Route("/operator/login", login_form, methods=["GET"]),
            Route("/operator/login", login, methods=["POST"])]
