"""`Durable` over a shared PostgreSQL (`[database] url`, issue 42): psycopg 3's connection pool,
one pool per process (each worker of each host has its own).

Statements are the stores' portable SQL with `?` placeholders (turned into psycopg's `%s`).
Each `execute` runs in its own transaction on a pooled connection; `transaction(locks)` takes
`pg_advisory_xact_lock` on every key, sorted, before its statements: writers of the same budget
on any host run one after the other (SQLite's `BEGIN IMMEDIATE`, spread over the network).
The pool checks a connection before lending it, so a server restarted since is reached again on
a fresh connection (its background reconnection gives up within RECONNECT_S, so the first call
after an outage connects at once instead of waiting out a grown backoff); a failure is a `DatabaseError` whose text names no password (a statement is
never sent twice: one that failed may have committed).

The calls are synchronous, as the SQLite store's are: a store call blocks its worker's event loop
for one round trip to the database (well under a millisecond on a LAN).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from .db import Conflict, DatabaseError, Kind, Result

log = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 5
# the pool's background reconnection gives up after this long (its backoff would otherwise grow
# to minutes during an outage); the next call then connects at once: back within one call
RECONNECT_S = 2.0


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


class _Tx:
    def __init__(self, conn: psycopg.Connection[tuple[object, ...]], db: PostgresDb) -> None:
        self._conn = conn
        self._db = db

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        self._db.statements += 1
        cursor = self._conn.execute(_sql(sql), tuple(args))
        return Result(cursor.fetchall() if cursor.description else [], cursor.rowcount)


class PostgresDb:
    kind: Kind = "postgres"
    failing: str | None = None
    # statements sent (a round trip each; a transaction's BEGIN and COMMIT count one more each):
    # `/metrics` modalcore_database_statements_total, the several-hosts bench's per intent
    statements = 0

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8, wait: bool = True) -> None:
        self.url = url
        self._pool: ConnectionPool[psycopg.Connection[tuple[object, ...]]] = ConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False, timeout=CONNECT_TIMEOUT_S,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "modalcore"},
            check=ConnectionPool.check_connection, name="modalcore", reconnect_timeout=RECONNECT_S)
        try:
            self._pool.open(wait=wait, timeout=CONNECT_TIMEOUT_S)
        except (psycopg.Error, PoolTimeout) as error:
            self._pool.close()
            raise _error(error, url) from None

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as error:  # the server: unreachable, gone
            self.failing = str(_error(error, self.url))
            raise _error(error, self.url) from None
        except psycopg.Error as error:
            raise _error(error, self.url) from None
        self.failing = None

    def execute(self, sql: str, args: Sequence[object] = ()) -> Result:
        with self._connection() as conn:
            return _Tx(conn, self).execute(sql, args)

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        with self._connection() as conn:
            with conn.cursor() as cursor:
                batch = [tuple(row) for row in rows]
                self.statements += len(batch)
                cursor.executemany(_sql(sql), batch)

    @contextlib.contextmanager
    def transaction(self, locks: Iterable[str] = ()) -> Iterator[_Tx]:
        with self._connection() as conn:
            with conn.transaction():
                self.statements += 2  # BEGIN, COMMIT
                tx = _Tx(conn, self)
                keys = sorted(set(locks))
                if keys:  # every key's lock in one round trip, taken in one order (no deadlock)
                    tx.execute("SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) "
                               "FROM unnest(?::text[]) AS k ORDER BY k", (keys,))
                yield tx

    def ensure(self, sqlite_schema: str) -> None:
        """The tables are the migrations' (schema.py); nothing to create here."""

    def compact(self) -> None:
        """PostgreSQL's autovacuum gives the room back."""

    def close(self) -> None:
        self._pool.close()
