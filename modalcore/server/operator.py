"""Operator-only endpoints (audit log, analytics counts) sit behind the config's
`operator_token`: unset turns them off (404), a missing or wrong bearer token is 401. A browser
signed in through `/operator/login` (server/operator_login.py) carries a cookie instead. An
address that sent too many wrong tokens gets 429 before its token is compared
(operator_limit.py)."""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .config import EngineConfig
from .operator_limit import client_address, too_many, wrong_tokens
from .operator_login import cookie_is_valid


def refuse_operator(request: Request) -> Response | None:
    """None when the request carries the operator token; else the response to send."""
    config: EngineConfig = request.app.state.config
    token = config.operator_token
    if not token:
        return JSONResponse({"error": "not_found"}, status_code=404)
    header = request.headers.get("authorization", "")
    presented = header[7:] if header[:7].lower() == "bearer " else ""
    if not presented and request.method in ("GET", "HEAD") and cookie_is_valid(request, token):
        return None  # a signed-in browser (the cookie is SameSite=Strict; only reads accept it)
    limiter = wrong_tokens(request)
    address = client_address(request)
    if presented and (wait := limiter.wait_s(address)):
        return too_many(wait)
    if not presented or not hmac.compare_digest(presented.encode(), token.encode()):
        if presented:
            limiter.failed(address)
        return JSONResponse({"error": "unauthorized"}, status_code=401,
                            headers={"WWW-Authenticate": "Bearer"})
    return None
