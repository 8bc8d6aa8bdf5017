"""The SIWX services the runtime runs for `Call` commands (plain JSON-able data in and out).

`siwx_services(store, http, signer)` returns ``{name: Service}`` (typed: the arguments validate
into the models below, the results are the TypedDicts below):

- ``siwx.nonce(session_key)`` → ``{"nonce": str}``
- ``siwx.sessions(address, domain=None, chain_id=None)`` → ``{"sessions": [session, ...]}``
- ``siwx.verify(message, signature, session_key, domain, uri, chain_id, address=None,
  rpc_url=None)`` → ``{"ok": True, "token": str, "session": session}`` or
  ``{"ok": False, "reason": code, "error": text}`` (never raises for a bad sign-in)
- ``siwx.revoke(address, domain=None)`` → ``{"revoked": int}``

A session is ``{"id", "data", "message", "signature", "cacao"}`` (behaviour.md §3, see
`SiwxSession.to_json`). `chain_id` may be an int or a CAIP-2 id ("eip155:1"); `address` may be
a plain or CAIP-10 address. Called directly, a service takes its arguments as keywords after an
optional leading positional context (the runtime's `ServiceContext`): with one, the time is read
from its clock, so sessions driven by a fake clock stay deterministic. Otherwise `clock` (unix ms)
given to `siwx_services` is used. Random nonces are fine for replay: their values come back to
the engine as recorded messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NotRequired, TypedDict

import httpx
from eth_account.signers.local import LocalAccount
from pydantic import BaseModel, ConfigDict

from ...core.services import serve, Service, ServiceContext, ServiceTable
from ...services.domain.handles import NonceArgs, NonceResult, RevokeArgs, RevokeResult, SIWS_SESSIONS, SIWS_VERIFY, SIWX_NONCE, SIWX_REVOKE, SIWX_SESSIONS, SIWX_VERIFY, SessionsArgs, SessionsResult, SiwsSessionsArgs, SiwsVerifyArgs, VerifyArgs, VerifyResult

from ..domain.grammar import SiwxMessageError
from ..domain.message import parse_chain_id
from .store import DEFAULT_SESSION_TTL_MS, SiwxSession, SiwxStore
from .tokens import issue_token
from .solana_verify import SOLANA_CHAIN_ID, is_session_of, siws_session, verify_siws
from .verify import SiwxVerifyError, verify

Clock = Callable[[], int]


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def system_clock_ms() -> int:
    return time.time_ns() // 1_000_000


def plain_address(address: str) -> str:
    """The 0x address of a plain or CAIP-10 ("eip155:1:0x…") account address."""
    return address.rsplit(":", 1)[-1] if ":" in address else address


def siwx_services(
    store: SiwxStore,
    http: httpx.AsyncClient | None,
    signer: LocalAccount,
    *,
    clock: Clock = system_clock_ms,
    session_ttl_ms: int = DEFAULT_SESSION_TTL_MS,
) -> ServiceTable:
    """The SIWX services, keyed by the names the siwx slice calls them by."""

    def now(ctx: ServiceContext | None) -> int:
        return ctx.clock.now_ms() if ctx is not None else clock()

    async def signed_in(session: SiwxSession, address: str, now_ms: int) -> VerifyResult:
        """Keep the verified sign-in's session; the answer with its token for `address`."""
        await store.add_session(session)
        token = issue_token(signer, address=address, chain_id=session.chain_id, domain=session.domain,
                            sid=session.id, iat=now_ms // 1000, exp=session.expires_at // 1000)
        return {"ok": True, "token": token, "session": session.to_json()}

    async def nonce(ctx: ServiceContext | None, args: NonceArgs) -> NonceResult:
        return {"nonce": await store.issue_nonce(args.session_key, now(ctx))}

    async def sessions(ctx: ServiceContext | None, args: SessionsArgs) -> SessionsResult:
        found = await store.sessions_for(
            plain_address(args.address),
            args.domain,
            None if args.chain_id is None else parse_chain_id(args.chain_id),
            now(ctx),
        )
        return {"sessions": [session.to_json() for session in found]}

    async def verify_service(ctx: ServiceContext | None, args: VerifyArgs) -> VerifyResult:
        message, signature, address = args.message, args.signature, args.address
        now_ms = now(ctx)
        try:
            expected_chain = parse_chain_id(args.chain_id)
        except SiwxMessageError as error:
            return {"ok": False, "reason": "wrong_chain_id", "error": error.detail}
        try:
            parsed = await verify(
                message,
                signature,
                expected_domain=args.domain,
                expected_uri=args.uri,
                expected_chain_id=expected_chain,
                expected_address=None if address is None else plain_address(address),
                nonce_store=store,
                session_key=args.session_key,
                now_ms=now_ms,
                rpc_url=args.rpc_url,
                http=http,
            )
        except SiwxVerifyError as error:
            return {"ok": False, "reason": error.reason, "error": error.detail}
        session = SiwxSession.from_message(
            parsed, message, signature, now_ms=now_ms, default_ttl_ms=session_ttl_ms
        )
        return await signed_in(session, parsed.account_address, now_ms)

    async def siws_sessions(ctx: ServiceContext | None, args: SiwsSessionsArgs) -> SessionsResult:
        found = await store.sessions_for(args.address, args.domain, SOLANA_CHAIN_ID, now(ctx))
        return {"sessions": [s.to_json() for s in found if is_session_of(s, args.address, args.chain)]}

    async def siws_verify(ctx: ServiceContext | None, args: SiwsVerifyArgs) -> VerifyResult:
        now_ms = now(ctx)
        try:
            parsed = await verify_siws(args.message, args.signature, expected_domain=args.domain,
                                       expected_uri=args.uri, expected_chain=args.chain,
                                       expected_address=args.address, nonce_store=store,
                                       session_key=args.session_key, now_ms=now_ms)
        except SiwxVerifyError as error:
            return {"ok": False, "reason": error.reason, "error": error.detail}
        session = siws_session(parsed, args.message, args.signature, now_ms=now_ms,
                               default_ttl_ms=session_ttl_ms)
        return await signed_in(session, parsed.address, now_ms)

    async def revoke(ctx: ServiceContext | None, args: RevokeArgs) -> RevokeResult:
        return {"revoked": await store.revoke(plain_address(args.address), args.domain)}

    return {
        SIWX_NONCE: serve(SIWX_NONCE, nonce),
        SIWX_SESSIONS: serve(SIWX_SESSIONS, sessions),
        SIWX_VERIFY: serve(SIWX_VERIFY, verify_service),
        SIWX_REVOKE: serve(SIWX_REVOKE, revoke),
        SIWS_SESSIONS: serve(SIWS_SESSIONS, siws_sessions),
        SIWS_VERIFY: serve(SIWS_VERIFY, siws_verify),
    }
