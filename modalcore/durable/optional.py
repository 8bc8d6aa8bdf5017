"""The PostgreSQL database, when the `modalcore[postgres]` extra is installed: the engine runs
without it (SQLite files); a config that names a PostgreSQL without it is refused at start
(`POSTGRES_MISSING`, a DatabaseError)."""

from __future__ import annotations

POSTGRES_MISSING = "a [database] url needs the postgres extra: pip install 'modalcore[postgres]'"

try:
    from .postgres import PostgresDb
except ModuleNotFoundError as missing:
    if missing.name not in ("psycopg", "psycopg_pool"):
        raise
    PostgresDb = None  # type: ignore[misc,assignment]

__all__ = ["POSTGRES_MISSING", "PostgresDb"]
