"""`GET /v1/audit/{session}`: one session's audit log with a verdict on its chain (operators)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .operator import refuse_operator
from ..store.base import SessionStore
from ..ledger.chain import entry_json, verify_chain

MAX_SESSION_ID_CHARS = 128


async def audit_log(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return refused
    session_id = request.path_params["session"]
    if len(session_id) > MAX_SESSION_ID_CHARS:
        return JSONResponse({"error": "invalid_session"}, status_code=400)
    store: SessionStore = request.app.state.store
    entries = await store.audit.entries(session_id)
    if not entries:
        return JSONResponse({"error": "not_found"}, status_code=404)
    count, broken = verify_chain(entries)
    return JSONResponse({
        "session": session_id,
        "entries": [entry_json(entry) for entry in entries],
        "verified": broken is None,
        "broken": None if broken is None else {"seq": broken.seq, "reason": broken.reason},
    })


def routes() -> list[Route]:
    return [Route("/v1/audit/{session:str}", audit_log)]
