"""Sign out of the operator pages (`POST /operator/logout`, the analytics page's Sign out
button): the session cookie is cleared and the browser goes to the sign-in form. Same-origin
only (the sign-in's check, server/operator_login.py), so another site cannot sign the operator
out; a request carrying the bearer token has nothing to clear and gets the same answer."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .config import EngineConfig
from .operator_login import SESSION_COOKIE, _same_origin


async def logout(request: Request) -> Response:
    config: EngineConfig = request.app.state.config
    if not config.operator_token:
        return JSONResponse({"error": "not_found"}, status_code=404)
    if not _same_origin(request):
        return JSONResponse({"error": "forbidden"}, status_code=403)
    response = RedirectResponse("/operator/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
    return response


def routes() -> list[Route]:
    return [Route("/operator/logout", logout, methods=["POST"])]
