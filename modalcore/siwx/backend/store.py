"""Where SIWX nonces and sessions live: the `SiwxStore` interface and its implementation over a
durable database (`DurableSiwxStore`: a SQLite file per host, or the shared PostgreSQL of
`[database] url`, issue 42; `SqliteSiwxStore` is the same class).

Nonces are issued to one engine session (`session_key`), used at most once and expire after
`nonce_ttl_ms` (10 minutes). A SIWX session (behaviour.md §3: data, message, signature, cacao) is kept
per signed-in address; `sessions_for` returns only unrevoked, unexpired ones. All times are unix
milliseconds and are passed in by the caller (no clock reads here).
"""

from __future__ import annotations

import json
import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from ...durable.db import Durable, Result
from ...durable.sqlite import SqliteDb
from ...rules import limits as L
from ..domain.message import SignInMessage, SiwxMessage

NONCE_TTL_MS = 10 * 60 * 1000
NONCE_KEEP_MS = 24 * 60 * 60 * 1000  # used/expired nonces are pruned after a day
DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000  # when the message has no expiration time


class NonceStatus(str, Enum):
    OK = "ok"
    UNKNOWN = "unknown"
    USED = "used"
    EXPIRED = "expired"
    OTHER_SESSION = "other_session"


def build_cacao(message: SignInMessage, signature: str, signature_type: str = "eip191") -> dict[str, Any]:
    """A CAIP-74 CACAO (header caip122) for a signed sign-in message: the signer as
    did:pkh:{CAIP-2 chain}:{address}, the signature typed `signature_type` (EIP-191 for SIWE,
    solana:ed25519 for SIWS)."""
    payload: dict[str, object] = {
        "domain": message.domain,
        "iss": f"did:pkh:{message.caip2}:{message.signer}",
        "aud": message.uri,
        "version": message.version,
        "nonce": message.nonce,
        "iat": message.issued_at,
    }
    optional = {
        "exp": message.expiration_time,
        "nbf": message.not_before,
        "requestId": message.request_id,
        "resources": None if message.resources is None else list(message.resources),
        "statement": message.statement,
    }
    payload.update({key: value for key, value in optional.items() if value is not None})
    return {"h": {"t": "caip122"}, "p": payload, "s": {"t": signature_type, "s": signature}}


def new_session_id() -> str:
    return secrets.token_urlsafe(18)


@dataclass(frozen=True)
class SiwxSession:
    """One sign-in. `address` is lowercase; times are unix ms."""

    id: str
    address: str
    chain_id: int
    domain: str
    message: str
    signature: str
    data: dict[str, object] = field(hash=False)
    cacao: dict[str, object] = field(hash=False)
    issued_at: int
    expires_at: int
    created_at: int
    revoked: bool = False

    @classmethod
    def from_message(
        cls,
        message: SiwxMessage,
        text: str,
        signature: str,
        *,
        now_ms: int,
        session_id: str | None = None,
        default_ttl_ms: int = DEFAULT_SESSION_TTL_MS,
    ) -> SiwxSession:
        """A session for a verified EIP-4361 message (see `signed_in`)."""
        return cls.signed_in(message, text, signature, chain_id=message.chain_id, now_ms=now_ms,
                             session_id=session_id, default_ttl_ms=default_ttl_ms)

    @classmethod
    def signed_in(
        cls,
        message: SignInMessage,
        text: str,
        signature: str,
        *,
        chain_id: int,
        now_ms: int,
        signature_type: str = "eip191",
        session_id: str | None = None,
        default_ttl_ms: int = DEFAULT_SESSION_TTL_MS,
    ) -> SiwxSession:
        """A session for a verified message of either namespace, kept under the store's integer
        `chain_id`. It ends at the message's expiration time, or `default_ttl_ms` after `now_ms`
        when the message has none."""
        expires = message.expiration_time_ms
        return cls(
            id=session_id or new_session_id(),
            address=message.signer.lower(),
            chain_id=chain_id,
            domain=message.domain,
            message=text,
            signature=signature,
            data=message.to_data(),
            cacao=build_cacao(message, signature, signature_type),
            issued_at=message.issued_at_ms,
            expires_at=expires if expires is not None else now_ms + default_ttl_ms,
            created_at=now_ms,
        )

    def to_json(self) -> dict[str, Any]:
        """The behaviour.md §3 shape (data, message, signature, cacao) plus the session `id`."""
        return {
            "id": self.id,
            "data": self.data,
            "message": self.message,
            "signature": self.signature,
            "cacao": self.cacao,
        }


class SiwxStore(ABC):
    """Nonces and sessions. Implementations must make `consume_nonce` atomic."""

    def __init__(self, nonce_ttl_ms: int = NONCE_TTL_MS) -> None:
        self.nonce_ttl_ms = nonce_ttl_ms

    @abstractmethod
    async def issue_nonce(self, session_key: str, now_ms: int) -> str:
        """A fresh random nonce (32 hex digits) bound to `session_key`."""

    @abstractmethod
    async def check_nonce(self, nonce: str, session_key: str, now_ms: int) -> NonceStatus:
        """What `consume_nonce` would answer, without using the nonce."""

    @abstractmethod
    async def consume_nonce(self, nonce: str, session_key: str, now_ms: int) -> NonceStatus:
        """Mark the nonce used if it is OK (issued to this session, unused, unexpired)."""

    @abstractmethod
    async def add_session(self, session: SiwxSession) -> None: ...

    @abstractmethod
    async def get_session(self, session_id: str) -> SiwxSession | None: ...

    @abstractmethod
    async def sessions_for(
        self, address: str, domain: str | None, chain_id: int | None, now_ms: int
    ) -> list[SiwxSession]:
        """Unrevoked, unexpired sessions of an address, oldest first; None matches any."""

    @abstractmethod
    async def revoke(self, address: str, domain: str | None) -> int:
        """Revoke every session of the address (on the domain, if given); how many."""

    @abstractmethod
    async def revoke_session(self, session_id: str) -> bool:
        """Revoke one session; False if it does not exist or was already revoked."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS siwx_nonces (
    nonce TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    used INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS siwx_nonces_issued ON siwx_nonces (issued_at);
CREATE TABLE IF NOT EXISTS siwx_sessions (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    chain_id INTEGER NOT NULL,
    domain TEXT NOT NULL,
    message TEXT NOT NULL,
    signature TEXT NOT NULL,
    data TEXT NOT NULL,
    cacao TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS siwx_sessions_owner ON siwx_sessions (address, domain);
"""

_SESSION_COLUMNS = (
    "id, address, chain_id, domain, message, signature, data, cacao, "
    "issued_at, expires_at, revoked, created_at"
)


class DurableSiwxStore(SiwxStore):
    """Over a durable database: `path` is a SQLite file (WAL, autocommit; ":memory:" too) or an
    open database (the shared PostgreSQL). Statements are tiny and run in-line; the database
    serializes threads (e.g. a TestClient) and, for a nonce, hosts."""

    def __init__(self, path: str | Path | Durable, nonce_ttl_ms: int = NONCE_TTL_MS) -> None:
        super().__init__(nonce_ttl_ms)
        self._own = isinstance(path, (str, Path))
        self._db: Durable = SqliteDb(path, synchronous="NORMAL") if isinstance(path, (str, Path)) else path
        self.path = str(path) if isinstance(path, (str, Path)) else path.kind
        self._db.ensure(_SCHEMA)

    def _run(self, sql: str, args: tuple[object, ...] = ()) -> Result:
        return self._db.execute(sql, args)

    # -- nonces ----------------------------------------------------------------------------

    async def issue_nonce(self, session_key: str, now_ms: int) -> str:
        if not session_key:
            raise ValueError("a nonce must be bound to a session")
        nonce = secrets.token_hex(16)
        # two round trips, no transaction (issue 42: at most 2 for an intent that touches a
        # durable record): the nonce, then one DELETE of the expired ones and of this session's
        # open ones beyond a few (a session signs one message at a time, so pressing Sign over
        # and over holds a bounded number, rules/limits.py). Two hosts issuing for one session at
        # once each keep the newest few: the bound holds once both are done.
        self._run("INSERT INTO siwx_nonces (nonce, session_key, issued_at) VALUES (?, ?, ?)",
                  (nonce, session_key, now_ms))
        self._run(
            "DELETE FROM siwx_nonces WHERE issued_at < ? OR (session_key = ? AND used = 0 AND rowid NOT IN ("
            "SELECT rowid FROM siwx_nonces WHERE session_key = ? AND used = 0 "
            "ORDER BY issued_at DESC, rowid DESC LIMIT ?))",
            (now_ms - NONCE_KEEP_MS, session_key, session_key, L.MAX_OPEN_NONCES),
        )
        return nonce

    def _status(self, nonce: str, session_key: str, now_ms: int) -> NonceStatus:
        row = self._db.execute(
            "SELECT session_key, issued_at, used FROM siwx_nonces WHERE nonce = ?", (nonce,)
        ).fetchone()
        if row is None:
            return NonceStatus.UNKNOWN
        owner, issued_at, used = row
        if owner != session_key:
            return NonceStatus.OTHER_SESSION
        if used:
            return NonceStatus.USED
        if now_ms - int(str(issued_at)) > self.nonce_ttl_ms:
            return NonceStatus.EXPIRED
        return NonceStatus.OK

    async def check_nonce(self, nonce: str, session_key: str, now_ms: int) -> NonceStatus:
        return self._status(nonce, session_key, now_ms)

    async def consume_nonce(self, nonce: str, session_key: str, now_ms: int) -> NonceStatus:
        """One UPDATE decides: of two hosts consuming one nonce, exactly one sees OK."""
        cursor = self._db.execute(
            "UPDATE siwx_nonces SET used = 1 "
            "WHERE nonce = ? AND session_key = ? AND used = 0 AND issued_at >= ?",
            (nonce, session_key, now_ms - self.nonce_ttl_ms),
        )
        if cursor.rowcount == 1:
            return NonceStatus.OK
        return self._status(nonce, session_key, now_ms)

    # -- sessions --------------------------------------------------------------------------

    async def add_session(self, session: SiwxSession) -> None:
        self._run(
            f"INSERT INTO siwx_sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session.id,
                session.address.lower(),
                session.chain_id,
                session.domain,
                session.message,
                session.signature,
                json.dumps(session.data, separators=(",", ":")),
                json.dumps(session.cacao, separators=(",", ":")),
                session.issued_at,
                session.expires_at,
                int(session.revoked),
                session.created_at,
            ),
        )

    @staticmethod
    def _session(row: tuple[Any, ...]) -> SiwxSession:
        (sid, address, chain_id, domain, message, signature, data, cacao,
         issued_at, expires_at, revoked, created_at) = row
        return SiwxSession(
            id=sid,
            address=address,
            chain_id=int(chain_id),
            domain=domain,
            message=message,
            signature=signature,
            data=json.loads(data),
            cacao=json.loads(cacao),
            issued_at=int(issued_at),
            expires_at=int(expires_at),
            created_at=int(created_at),
            revoked=bool(revoked),
        )

    async def get_session(self, session_id: str) -> SiwxSession | None:
        row = self._run(
            f"SELECT {_SESSION_COLUMNS} FROM siwx_sessions WHERE id = ?", (session_id,)
        ).fetchone()
        return None if row is None else self._session(row)

    async def sessions_for(
        self, address: str, domain: str | None, chain_id: int | None, now_ms: int
    ) -> list[SiwxSession]:
        sql = (
            f"SELECT {_SESSION_COLUMNS} FROM siwx_sessions "
            "WHERE address = ? AND revoked = 0 AND expires_at > ?"
        )
        args: list[object] = [address.lower(), now_ms]
        if domain is not None:
            sql += " AND domain = ?"
            args.append(domain)
        if chain_id is not None:
            sql += " AND chain_id = ?"
            args.append(chain_id)
        rows = self._db.execute(sql + " ORDER BY created_at, id", tuple(args)).fetchall()
        return [self._session(row) for row in rows]

    async def revoke(self, address: str, domain: str | None) -> int:
        sql = "UPDATE siwx_sessions SET revoked = 1 WHERE address = ? AND revoked = 0"
        args: list[object] = [address.lower()]
        if domain is not None:
            sql += " AND domain = ?"
            args.append(domain)
        return self._run(sql, tuple(args)).rowcount

    async def revoke_session(self, session_id: str) -> bool:
        cursor = self._run(
            "UPDATE siwx_sessions SET revoked = 1 WHERE id = ? AND revoked = 0", (session_id,)
        )
        return cursor.rowcount == 1

    def close(self) -> None:
        """Close a SQLite file it opened (a shared database is its opener's to close)."""
        if self._own:
            self._db.close()


SqliteSiwxStore = DurableSiwxStore
