"""The SIWX services the runtime runs for `Call` commands (plain JSON-able data in and out).

`siwx_services(store, http, signer)` returns ``{name: async service}``:

- ``siwx.nonce(session_key)`` → ``{"nonce": str}``
- ``siwx.sessions(address, domain=None, chain_id=None)`` → ``{"sessions": [session, ...]}``
- ``siwx.verify(message, signature, session_key, domain, uri, chain_id, address=None,
  rpc_url=None)`` → ``{"ok": True, "token": str, "session": session}`` or
  ``{"ok": False, "reason": code, "error": text}`` (never raises for a bad sign-in)
- ``siwx.revoke(address, domain=None)`` → ``{"revoked": int}``
- ``siws.sessions(address, domain, chain)`` and ``siws.verify(message, signature, session_key,
  domain, uri, chain, address)``: the same for Sign-In with Solana (modalcore/siwx/solana.py;
  `chain` a CAIP-2 id, `signature` base64 Ed25519)

A session is ``{"id", "data", "message", "signature", "cacao"}`` (SPEC §3, see
`SiwxSession.to_json`). `chain_id` may be an int or a CAIP-2 id ("eip155:1"); `address` may be
a plain or CAIP-10 address. Each service takes its arguments as keywords and accepts an optional
leading positional context (the runtime's `ServiceContext`): when it has a `clock`, the time is
read from it, so sessions driven by a fake clock stay deterministic. Otherwise `clock` (unix ms)
given to `siwx_services` is used. Random nonces are fine for replay: their values come back to
the engine as recorded messages.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from eth_account.signers.local import LocalAccount

from .message import SiwxMessageError, parse_chain_id
from .store import DEFAULT_SESSION_TTL_MS, SiwxSession, SiwxStore
from .tokens import issue_token
from .solana import SOLANA_CHAIN_ID, is_session_of, siws_session, verify_siws
from .verify import SiwxVerifyError, verify

Service = Callable[..., Awaitable[Any]]
Clock = Callable[[], int]


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
) -> dict[str, Service]:
    """The SIWX services, keyed by the names the siwx slice calls them by."""

    def now(ctx: Any) -> int:
        ctx_clock = getattr(ctx, "clock", None)
        if ctx_clock is not None and hasattr(ctx_clock, "now_ms"):
            return int(ctx_clock.now_ms())
        return clock()

    async def nonce(ctx: Any = None, /, *, session_key: str) -> dict[str, Any]:
        return {"nonce": await store.issue_nonce(session_key, now(ctx))}

    async def sessions(
        ctx: Any = None, /, *, address: str, domain: str | None = None,
        chain_id: int | str | None = None,
    ) -> dict[str, Any]:
        found = await store.sessions_for(
            plain_address(address),
            domain,
            None if chain_id is None else parse_chain_id(chain_id),
            now(ctx),
        )
        return {"sessions": [session.to_json() for session in found]}

    async def verify_service(
        ctx: Any = None,
        /,
        *,
        message: str,
        signature: str,
        session_key: str,
        domain: str,
        uri: str,
        chain_id: int | str,
        address: str | None = None,
        rpc_url: str | None = None,
    ) -> dict[str, Any]:
        now_ms = now(ctx)
        try:
            expected_chain = parse_chain_id(chain_id)
        except SiwxMessageError as error:
            return {"ok": False, "reason": "wrong_chain_id", "error": error.detail}
        try:
            parsed = await verify(
                message,
                signature,
                expected_domain=domain,
                expected_uri=uri,
                expected_chain_id=expected_chain,
                expected_address=None if address is None else plain_address(address),
                nonce_store=store,
                session_key=session_key,
                now_ms=now_ms,
                rpc_url=rpc_url,
                http=http,
            )
        except SiwxVerifyError as error:
            return {"ok": False, "reason": error.reason, "error": error.detail}
        session = SiwxSession.from_message(
            parsed, message, signature, now_ms=now_ms, default_ttl_ms=session_ttl_ms
        )
        await store.add_session(session)
        token = issue_token(
            signer,
            address=parsed.account_address,
            chain_id=parsed.chain_id,
            domain=parsed.domain,
            sid=session.id,
            iat=now_ms // 1000,
            exp=session.expires_at // 1000,
        )
        return {"ok": True, "token": token, "session": session.to_json()}

    async def siws_sessions(ctx: Any = None, /, *, address: str, domain: str | None = None,
                            chain: str) -> dict[str, Any]:
        found = await store.sessions_for(address, domain, SOLANA_CHAIN_ID, now(ctx))
        return {"sessions": [s.to_json() for s in found if is_session_of(s, address, chain)]}

    async def siws_verify(ctx: Any = None, /, *, message: str, signature: str, session_key: str,
                          domain: str, uri: str, chain: str, address: str | None = None) -> dict[str, Any]:
        now_ms = now(ctx)
        try:
            parsed = await verify_siws(message, signature, expected_domain=domain, expected_uri=uri,
                                       expected_chain=chain, expected_address=address,
                                       nonce_store=store, session_key=session_key, now_ms=now_ms)
        except SiwxVerifyError as error:
            return {"ok": False, "reason": error.reason, "error": error.detail}
        session = siws_session(parsed, message, signature, now_ms=now_ms, default_ttl_ms=session_ttl_ms)
        await store.add_session(session)
        token = issue_token(signer, address=parsed.address, chain_id=SOLANA_CHAIN_ID, domain=parsed.domain,
                            sid=session.id, iat=now_ms // 1000, exp=session.expires_at // 1000)
        return {"ok": True, "token": token, "session": session.to_json()}

    async def revoke(
        ctx: Any = None, /, *, address: str, domain: str | None = None
    ) -> dict[str, Any]:
        return {"revoked": await store.revoke(plain_address(address), domain)}

    return {
        "siwx.nonce": nonce,
        "siwx.sessions": sessions,
        "siwx.verify": verify_service,
        "siwx.revoke": revoke,
        "siws.sessions": siws_sessions,
        "siws.verify": siws_verify,
    }
