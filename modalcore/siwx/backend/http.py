"""HTTP routes for the host's backend (behaviour.md §7 "GET /v1/sessions/{address}; POST
/v1/sessions/{address}/revoke: pci, signature"). Mount `routes(store, engine_address=...)`.

GET /v1/sessions/{address}?domain=&chainId=
    200 → JSON list of the address's unrevoked, unexpired sessions, each
    {"id", "data", "message", "signature", "cacao"}; `domain` and `chainId` (int or CAIP-2)
    are optional filters. 400 for an address that is not 0x + 40 hex.

POST /v1/sessions/{address}/revoke   body {"pci": session id, "signature": str}
    Revoking rule: only the signed-in account, or whoever holds that session's token, may
    revoke it. `signature` must be one of
      - the session token issued for that very session (signed by the engine key, unexpired,
        whose `sid` is `pci` and whose `address` is `{address}`), or
      - an EIP-191 personal_sign signature by `{address}` over the text "revoke {pci}".
    The session must belong to `{address}` (else 404, also for unknown ids, so nothing leaks).
    Replaying a captured revoke signature can only revoke the same session again: harmless.
    Contract (EIP-1271) accounts revoke with their token. 200 → {"pci", "revoked": true};
    400 malformed body; 403 signature that does not authorise it.

Either answers 503 {"error": ...} while the store cannot be reached (the shared PostgreSQL of
`[database] url` down, issue 42): one log line, no traceback.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..domain.grammar import SiwxMessageError
from ..domain.message import parse_chain_id
from .store import SiwxStore
from .tokens import TokenError, verify_token
from .verify import SiwxVerifyError, recover_eoa, signature_bytes
from ...durable.db import DatabaseError
from ...rules.texts import INVALID_CHAIN_ID

log = logging.getLogger(__name__)

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
MAX_BODY_BYTES = 16 * 1024


def revoke_text(pci: str) -> str:
    """What an account signs (personal_sign) to revoke one of its sessions."""
    return f"revoke {pci}"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _unreachable(error: DatabaseError) -> JSONResponse:
    log.warning("sign-in sessions: the store cannot be reached (%s)", error)
    return _error(503, "The sign-in sessions cannot be read now; try again")


def routes(
    store: SiwxStore,
    *,
    engine_address: str | None = None,
    clock: Callable[[], int] | None = None,
) -> list[Route]:
    """The two session routes. Without `engine_address`, tokens cannot authorise a revoke
    (only signatures by the account can). `clock` returns unix ms (default: system time)."""

    def now_ms() -> int:
        return clock() if clock is not None else time.time_ns() // 1_000_000

    async def list_sessions(request: Request) -> JSONResponse:
        address = request.path_params["address"]
        if not _ADDRESS.match(address):
            return _error(400, "Invalid address")
        domain = request.query_params.get("domain") or None
        chain_text = request.query_params.get("chainId") or None
        try:
            chain_id = None if chain_text is None else parse_chain_id(chain_text)
        except SiwxMessageError:
            return _error(400, INVALID_CHAIN_ID)
        try:
            found = await store.sessions_for(address, domain, chain_id, now_ms())
        except DatabaseError as error:
            return _unreachable(error)
        return JSONResponse([session.to_json() for session in found])

    def authorised(address: str, pci: str, signature: str) -> bool:
        if "." in signature:  # a session token
            if engine_address is None:
                return False
            try:
                claims = verify_token(signature, engine_address, now_ms() / 1000)
            except TokenError:
                return False
            return claims["sid"] == pci and str(claims["address"]).lower() == address.lower()
        try:
            raw = signature_bytes(signature)
        except SiwxVerifyError:
            return False
        signer = recover_eoa(revoke_text(pci), raw)
        return signer is not None and signer.lower() == address.lower()

    async def revoke(request: Request) -> JSONResponse:
        address = request.path_params["address"]
        if not _ADDRESS.match(address):
            return _error(400, "Invalid address")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY_BYTES:
                return _error(413, "Body too large")
        try:
            body: object = json.loads(raw)
        except ValueError:
            return _error(400, "Body must be JSON")
        if not isinstance(body, dict):
            return _error(400, "Body must be a JSON object")
        pci, signature = body.get("pci"), body.get("signature")
        if not isinstance(pci, str) or not pci or not isinstance(signature, str) or not signature:
            return _error(400, "pci and signature are required strings")
        try:
            session = await store.get_session(pci)
            if session is None or session.address != address.lower():
                return _error(404, "Session not found")
            if not authorised(address, pci, signature):
                return _error(403, "The signature does not authorise revoking this session")
            await store.revoke_session(pci)
        except DatabaseError as error:
            return _unreachable(error)
        return JSONResponse({"pci": pci, "revoked": True})

    return [
        Route("/v1/sessions/{address}", list_sessions, methods=["GET"]),
        Route("/v1/sessions/{address}/revoke", revoke, methods=["POST"]),
    ]
