"""`Durable` over a shared PostgreSQL (`[database] url`, issue 42): psycopg 3's connection pool,
one pool per process (each worker of each host has its own).

Statements are the stores' portable SQL with `?` placeholders (turned into psycopg's `%s`).
Connections are in autocommit: an `execute` alone is one statement, its own transaction, one
round trip. `transaction(locks)` is BEGIN and `pg_advisory_xact_lock` on every key, sorted (no
deadlock), then its statements and COMMIT, sent in psycopg's pipeline mode: what the transaction
queued (`Tx.queue`: BEGIN, the locks, writes whose answer can wait) goes with its next read
(`Tx.execute`, `Tx.send`) and the COMMIT, one round trip per send. A store that reads once and
then writes takes two round trips, whatever its number of statements; writers of the same keys
on any host still run one after the other (SQLite's `BEGIN IMMEDIATE`, spread over the network).

`statements` counts round trips (one statement alone, or one pipeline of them): `/metrics`
modalcore_database_statements_total. The pool checks a connection before lending it without a
round trip (an idle connection the server closed, by a restart or an outage, has its goodbye
waiting on the socket; only then is it pinged, and that ping counts); a dead one is replaced by a
fresh connection (the pool's background reconnection gives up within RECONNECT_S, so the first
call after an outage connects at once instead of waiting out a grown backoff). A failure is a
`DatabaseError` whose text names no password (a statement is never sent twice: one that failed
may have committed).

The calls are synchronous, as the SQLite store's are: a store call blocks its worker's event loop
for its round trips to the database (well under a millisecond each on a LAN). While the server
cannot be reached, the first call waits CONNECT_TIMEOUT_S for a connection; every next one fails
as soon as the server is seen not to accept connections (refused, or no answer within
OUTAGE_PROBE_S), without waiting on the pool, and once it accepts them a call waits on the pool
as usual (the server back: the pool connects).
"""

from __future__ import annotations

import contextlib
import logging
import select
from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool, PoolTimeout

from .db import Conflict, DatabaseError, Kind, Result
from .reachable import any_answers, endpoints

log = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 5
# the pool's background reconnection gives up after this long (its backoff would otherwise grow
# to minutes during an outage); the next call then connects at once: back within one call
RECONNECT_S = 2.0
# once a call found the server unreachable, each next call first asks whether the server accepts
# a connection at all, within this long, and fails at once when it does not (reachable.py): a
# call blocks its worker's event loop, and waiting CONNECT_TIMEOUT_S for the pool on every call
# of an outage stalled every session of the worker for five seconds each time
OUTAGE_PROBE_S = 0.25


def redacted(url: str) -> str:
    """The URL without its password (for logs and errors)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _sql(text: str) -> str:
    return text.replace("%", "%%").replace("?", "%s")


def _error(error: Exception, url: str) -> DatabaseError:
    if isinstance(error, psycopg.errors.IntegrityError):
        return Conflict(f"postgres: {type(error).__name__}: {error.diag.message_primary or ''}")
    if isinstance(error, PoolTimeout):
        return DatabaseError(f"postgres: no connection to {redacted(url)} within {CONNECT_TIMEOUT_S} s")
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return DatabaseError(f"postgres: {text.replace(url, redacted(url))}")


_Conn = psycopg.Connection[tuple[object, ...]]
_Queued = tuple[str, tuple[object, ...], Result]


def _filled(cursor: psycopg.Cursor[tuple[object, ...]], result: Result) -> None:
    result.rows = cursor.fetchall() if cursor.description else []
    result.rowcount = cursor.rowcount


class _Tx:
    """One transaction's statements, queued and sent in pipelines (one round trip each)."""

    def __init__(self, conn: _Conn, db: PostgresDb) -> None:
        self._conn = conn
        self._db = db
        self._queue: list[_Queued] = []
        self.sent = False  # something reached the server: a failure must roll it back

    def queue(self, sql: str, args: Sequence[object] = ()) -> Result:
        result = Result()
        self._queue.append((_sql(sql), tuple(args), result))
        return result

    def send(self) -> None:
        if not self._queue:
            return
        batch, self._queue = self._queue, []
        self._db.statements += 1
        self.sent = True
        with self._conn.pipeline():  # its end sends one Sync and waits for every answer
            cursors = [(self._conn.execute(sql, args), result) for sql, args, result in batch]
        for cursor, result in cursors:
            _filled(cursor, result)

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        result = self.queue(sql, args)
        self.send()
        return result


class PostgresDb:
    kind: Kind = "postgres"
    failing: str | None = None
    # round trips to the server (one statement alone, or one pipeline of a transaction's; the
    # lending check's ping when it runs): `/metrics` modalcore_database_statements_total, the
    # several-hosts bench's per intent
    statements = 0

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8, wait: bool = True) -> None:
        self.url = url
        self._endpoints = endpoints(url)
        self._pool: ConnectionPool[_Conn] = ConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False, timeout=CONNECT_TIMEOUT_S,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "modalcore", "autocommit": True,
                    # no server-side prepared statements: preparing one is a round trip of its own
                    "prepare_threshold": None},
            check=self._check, name="modalcore", reconnect_timeout=RECONNECT_S)
        try:
            self._pool.open(wait=wait, timeout=CONNECT_TIMEOUT_S)
        except (psycopg.Error, PoolTimeout) as error:
            self._pool.close()
            raise _error(error, url) from None

    def _check(self, conn: _Conn) -> None:
        """Before a connection is lent: an idle connection has nothing to read unless the server
        closed it (or sent a rare notice): only then ping it (a round trip; raises when it is
        dead, and the pool takes another)."""
        if conn.closed or conn.broken:
            raise psycopg.OperationalError("the connection is closed")
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
        if readable:
            self.statements += 1
            conn.execute("")

    def still_down(self) -> bool:
        """A call found the server unreachable, and it still accepts no connection."""
        return (self.failing is not None and self._endpoints is not None
                and not any_answers(self._endpoints, OUTAGE_PROBE_S))

    @contextlib.contextmanager
    def _connection(self) -> Iterator[_Conn]:
        if self.still_down():
            raise DatabaseError(str(self.failing))
        try:
            with self._pool.connection(timeout=CONNECT_TIMEOUT_S) as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as error:  # the server: unreachable, gone
            self.failing = str(_error(error, self.url))
            raise _error(error, self.url) from None
        except psycopg.Error as error:
            raise _error(error, self.url) from None
        self.failing = None

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        with self._connection() as conn:
            self.statements += 1
            result = Result()
            _filled(conn.execute(_sql(sql), tuple(args)), result)
            return result

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        """Every row's statement in one pipeline (psycopg's executemany): one round trip."""
        batch = [tuple(row) for row in rows]
        if not batch:
            return
        with self._connection() as conn:
            with conn.cursor() as cursor:
                self.statements += 1
                cursor.executemany(_sql(sql), batch)

    @contextlib.contextmanager
    def transaction(self, locks: Iterable[str] = ()) -> Iterator[_Tx]:
        with self._connection() as conn:
            tx = _Tx(conn, self)
            tx.queue("BEGIN")
            keys = sorted(set(locks))
            if keys:  # every key's lock in one statement, taken in one order (no deadlock)
                tx.queue("SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) "
                         "FROM unnest(?::text[]) AS k ORDER BY k", (keys,))
            try:
                yield tx
                tx.queue("COMMIT")
                tx.send()
            except BaseException:
                if tx.sent and not conn.broken and conn.info.transaction_status != TransactionStatus.IDLE:
                    self.statements += 1
                    with contextlib.suppress(psycopg.Error):  # the first failure is the one to report
                        conn.execute("ROLLBACK")  # (a connection left in a transaction: the pool resets it)
                raise

    def ensure(self, sqlite_schema: str) -> None:
        """The tables are the migrations' (schema.py); nothing to create here."""

    def compact(self) -> None:
        """PostgreSQL's autovacuum gives the room back."""

    def close(self) -> None:
        self._pool.close()
