"""The engine's own name registry: the self-hosted equivalent of the hosted profile API's
`POST /v1/profile/account` (behaviour.md §7), stored in a durable database (a SQLite file per
host, or the shared PostgreSQL of `[database] url`: a name taken on one host is taken on all).

A registration is a message the visitor's account signed (EIP-191 `personal_sign`): the JSON
`{"name":"<label><suffix>","attributes":{},"timestamp":<unix s>}` (the hosted API's shape), built
by the engine (`rules.names.registration_message`). `register` checks the name rules (behaviour.md §5),
that the message names this name, that it is recent, that the signature is the address's, and
that the name is free; then it stores the name. The signature is checked as a SIWX sign-in's is
(siwx/backend/verify.py `check_signature`): EOA recovery, and with the chain's RPC an ERC-1271 contract
account or an ERC-6492 wrapped signature of an account not deployed yet (the embedded smart
account, issue 32: at most two `eth_call`s). Every refusal is a `RegistrationError` whose text is
what the visitor sees and whose `reason` says why; nothing is stored then. Names are kept
lower-cased with the operator's suffix (behaviour.md §9: default .reown.id)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import httpx
from eth_utils.address import is_address, to_checksum_address

from ...durable.db import Conflict, Durable
from ...durable.sqlite import SqliteDb
from ...rules import limits as L
from ...rules.names import DEFAULT_SUFFIX, error_registering, full_name, name_problem
from ...siwx.backend.verify import SiwxVerifyError, check_signature, signature_bytes

MESSAGE_MAX_AGE_MS = 10 * 60 * 1000  # a signed registration older than this is refused
MESSAGE_CHARS = 1024
SIGNATURE_CHARS = 4096  # an ERC-6492 wrapped signature (factory call + owner's) is ~900
SUGGESTION_TAILS = ("-1", "-2", "-eth", "-web3", "-id", "123", "-app")


class Refused(Enum):
    NAME = "name"  # the behaviour.md §5 name rule
    MALFORMED = "malformed"  # address, message or signature not what a registration carries
    MESSAGE = "message"  # the message names another name or is not recent
    SIGNATURE = "signature"  # not the address's signature of the message
    UNREACHABLE = "unreachable"  # a contract account's signature and the chain could not be asked
    TAKEN = "taken"


class RegistrationError(ValueError):
    """A refused registration; `str(error)` is the message shown (behaviour.md §8 or rules/names.py)."""

    def __init__(self, shown: str, reason: Refused) -> None:
        super().__init__(shown)
        self.reason = reason


@dataclass(frozen=True)
class Registered:
    name: str
    address: str


def label_of(name: str, suffix: str) -> str:
    """The part before the suffix (`alice.reown.id` -> `alice`; a bare label stays as it is)."""
    lowered = name.lower()
    return lowered[: -len(suffix)] if suffix and lowered.endswith(suffix) else lowered


_SCHEMA = """
CREATE TABLE IF NOT EXISTS names (name TEXT PRIMARY KEY, address TEXT NOT NULL, registered_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS names_address ON names (address);
"""


class NameRegistry:
    def __init__(self, path: str | Path | Durable = ":memory:", suffix: str = DEFAULT_SUFFIX) -> None:
        self.suffix = suffix if suffix.startswith(".") else "." + suffix
        self._own = isinstance(path, (str, Path))
        self._db: Durable = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._db.ensure(_SCHEMA)

    def close(self) -> None:
        """Close a SQLite file it opened (a shared database is its opener's to close)."""
        if self._own:
            self._db.close()

    def owns(self, name: str) -> bool:
        """Whether `name` is under this registry's suffix."""
        return name.lower().endswith(self.suffix)

    def address_of(self, name: str) -> str | None:
        row = self._db.execute("SELECT address FROM names WHERE name = ?", (name.lower(),)).fetchone()
        return None if row is None else to_checksum_address(str(row[0]))

    def name_of(self, address: str) -> str | None:
        """The newest name registered for `address`."""
        row = self._db.execute(
            "SELECT name FROM names WHERE address = ? ORDER BY registered_at DESC, name LIMIT 1",
            (address.lower(),)).fetchone()
        return None if row is None else str(row[0])

    def names(self) -> list[Registered]:
        rows = self._db.execute("SELECT name, address FROM names ORDER BY name").fetchall()
        return [Registered(str(n), to_checksum_address(str(a))) for n, a in rows]

    def available(self, label: str) -> bool:
        return self.address_of(full_name(label, self.suffix)) is None

    def suggestions(self, label: str) -> list[str]:
        """Other free names near `label` (full names, the label with a tail), at most
        L.MAX_NAME_SUGGESTIONS."""
        found: list[str] = []
        for candidate in (label + tail for tail in SUGGESTION_TAILS):
            if name_problem(candidate) is None and self.available(candidate):
                found.append(full_name(candidate, self.suffix))
            if len(found) == L.MAX_NAME_SUGGESTIONS:
                break
        return found

    async def register(self, label: str, address: str, message: str, signature: str, now_ms: int, *,
                       rpc_url: str | None = None, http: httpx.AsyncClient | None = None) -> Registered:
        """Store `label` for `address` if `signature` is the address's over `message`; with
        `rpc_url` and `http` (the registration's chain) a contract account's signature counts."""
        problem = name_problem(label)
        if problem is not None:
            raise RegistrationError(problem.message, Refused.NAME)
        name = full_name(label, self.suffix)
        failed = error_registering(name)
        if not is_address(address) or len(message) > MESSAGE_CHARS or len(signature) > SIGNATURE_CHARS:
            raise RegistrationError(failed, Refused.MALFORMED)
        try:
            fields = json.loads(message)
            signed = signature_bytes(signature if signature.startswith("0x") else "0x" + signature)
        except (ValueError, SiwxVerifyError):
            raise RegistrationError(failed, Refused.MALFORMED) from None
        if (not isinstance(fields, dict) or fields.get("name") != name
                or not isinstance(fields.get("timestamp"), int)
                or abs(now_ms - fields["timestamp"] * 1000) > MESSAGE_MAX_AGE_MS):
            raise RegistrationError(failed, Refused.MESSAGE)
        try:
            await check_signature(message, address, signed, rpc_url=rpc_url, http=http)
        except SiwxVerifyError as error:
            reason = Refused.UNREACHABLE if error.reason == "rpc_unavailable" else Refused.SIGNATURE
            raise RegistrationError(failed, reason) from None
        try:
            self._db.execute("INSERT INTO names (name, address, registered_at) VALUES (?, ?, ?)",
                             (name, address.lower(), now_ms))
        except Conflict:
            raise RegistrationError(failed, Refused.TAKEN) from None
        return Registered(name, to_checksum_address(address))
