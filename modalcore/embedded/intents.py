"""What the embedded wallet was about to broadcast for an approved request (issue 38 item 6).

The engine's signer writes one row here BEFORE it broadcasts (`record`): the session and the
request (its effect id) it answers, what it sends (a signed raw transaction, or a signed
UserOperation), its hash, the sender and the nonce it uses. A row that cannot be written stops
the send: nothing leaves the engine that a restarted engine could not look up.

After a restart (or a worker takeover) a session whose request was being signed asks
`embedded.resolve` (resolve.py), which reads the row back: no row, nothing was sent; a row, the
chain (or the bundler) says whether that very transaction landed. The same signed bytes may be
broadcast again (same nonce, same hash: still at most once), never a new transaction.

Kept in the embedded wallet's durable store (its SQLite file, shared by a host's workers, or the
PostgreSQL every host shares); rows older than `KEEP_MS` are dropped as new ones are written.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Literal

from ..durable.db import DatabaseError, Durable
from ..durable.sqlite import SqliteDb

log = logging.getLogger(__name__)

KEEP_MS = 7 * 86_400_000
IntentKind = Literal["tx", "userop", "calls"]  # a raw transaction; a UserOperation (answered by
# its transaction hash, or, for wallet_sendCalls, by its calls id)

# what the signer calls before it broadcasts: (kind, sender, nonce, hash, payload)
Note = Callable[[IntentKind, str, int, str, str], None]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS send_intents (
    session TEXT NOT NULL,
    eid TEXT NOT NULL,
    kind TEXT NOT NULL,
    chain TEXT NOT NULL,
    sender TEXT NOT NULL,
    nonce TEXT NOT NULL,
    hash TEXT NOT NULL,
    payload TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (session, eid)
);
CREATE INDEX IF NOT EXISTS send_intents_at ON send_intents (at);
"""


class IntentNotRecorded(Exception):
    """The intent could not be written: the send must not go out."""


@dataclass(frozen=True)
class SendIntent:
    session: str
    eid: str
    kind: IntentKind
    chain: str  # CAIP-2
    sender: str  # the EOA, or the smart account
    nonce: int
    hash: str  # the transaction's hash, or the UserOperation's
    payload: str  # the signed raw transaction (0x hex), or the signed UserOperation (its RPC JSON)
    at: int = 0


class SendIntents:
    def __init__(self, path: str | Path | Durable) -> None:
        self._db = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._own = isinstance(path, (str, Path))
        self._db.ensure(_SCHEMA)

    def record(self, intent: SendIntent) -> None:
        """Write the intent (IntentNotRecorded when the store cannot be written)."""
        try:
            with self._db.transaction() as tx:
                tx.execute(
                    "INSERT INTO send_intents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session, eid) DO UPDATE "
                    "SET kind = excluded.kind, chain = excluded.chain, sender = excluded.sender, nonce = excluded.nonce, "
                    "hash = excluded.hash, payload = excluded.payload, at = excluded.at",
                    (intent.session, intent.eid, intent.kind, intent.chain, intent.sender, str(intent.nonce),
                     intent.hash, intent.payload, intent.at))
                tx.execute("DELETE FROM send_intents WHERE at < ?", (intent.at - KEEP_MS,))
        except DatabaseError as error:
            log.warning("send intent not recorded: %s", error)
            raise IntentNotRecorded(str(error)) from None

    def get(self, session: str, eid: str) -> SendIntent | None:
        """The intent of the request `eid` of `session`; None when none was recorded (or the file
        cannot be read: then nothing is re-sent either)."""
        try:
            row = self._db.execute(
                "SELECT session, eid, kind, chain, sender, nonce, hash, payload, at FROM send_intents"
                " WHERE session = ? AND eid = ?", (session, eid)).fetchone()
        except DatabaseError as error:
            log.warning("send intents unreadable: %s", error)
            raise IntentNotRecorded(str(error)) from None
        if row is None:
            return None
        kind: IntentKind = "tx" if row[2] == "tx" else "calls" if row[2] == "calls" else "userop"
        return SendIntent(str(row[0]), str(row[1]), kind, str(row[3]), str(row[4]), int(str(row[5])), str(row[6]),
                          str(row[7]), int(str(row[8])))

    def close(self) -> None:
        """Close a SQLite file it opened (a database handed to it is its opener's to close)."""
        if self._own:
            self._db.close()


def memory_intents() -> SendIntents:
    """Intents kept in this process only (tests, tools): a real engine keeps them in its db."""
    return SendIntents(":memory:")
