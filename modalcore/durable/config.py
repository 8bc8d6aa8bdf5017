"""The operator's `[database]` section (issue 42) and opening the durable store it names.

    [database]
    url = "postgresql://modalcore:PASSWORD@db.internal:5432/modalcore"   # empty: SQLite
    pool_min = 1        # connections each engine process keeps open
    pool_max = 8        # at most, per process

Without a URL the embedded wallet keeps its records in its SQLite file (`[embedded] db`), as one
host always did. With one, they go to PostgreSQL, which every host of a deployment shares; the
engine refuses to start until `modalcore db upgrade` has brought the schema to its version.
`MODALCORE_DATABASE_URL` (environment) stands in for `url` so the password need not be written
in the config file.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .db import DatabaseError, Durable
from .optional import POSTGRES_MISSING, PostgresDb
from .schema import check
from .sqlite import SqliteDb

URL_ENV = "MODALCORE_DATABASE_URL"


class DatabaseSection(BaseModel):
    """`url` may hold a password: it is never printed (repr, logs and errors redact it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str = Field(default="", repr=False)
    pool_min: int = Field(default=1, ge=0, le=100)
    pool_max: int = Field(default=8, ge=1, le=200)

    @field_validator("url")
    @classmethod
    def _postgres(cls, url: str) -> str:
        if url and not url.startswith(("postgresql://", "postgres://")):
            raise ValueError("the database url starts with postgresql:// (an empty url keeps SQLite)")
        return url

    def effective_url(self) -> str:
        return self.url or os.environ.get(URL_ENV, "")


def section_of(extra: dict[str, object] | None) -> DatabaseSection:
    return DatabaseSection.model_validate((extra or {}).get("database") or {})


def open_postgres(section: DatabaseSection, *, checked: bool = True) -> Durable:
    """The shared PostgreSQL of `section` (its schema checked unless `checked` is False: the
    upgrade itself). DatabaseError when unreachable; SchemaBehind/SchemaAhead."""
    if PostgresDb is None:
        raise DatabaseError(POSTGRES_MISSING)
    db = PostgresDb(section.effective_url(), min_size=min(section.pool_min, section.pool_max),
                    max_size=section.pool_max)
    if checked:
        try:
            check(db)
        except BaseException:
            db.close()
            raise
    return db


def open_shared(extra: dict[str, object] | None) -> Durable | None:
    """The config's shared PostgreSQL (schema checked), or None: each store keeps its SQLite file."""
    section = section_of(extra)
    return open_postgres(section) if section.effective_url() else None


def open_durable(section: DatabaseSection, sqlite_path: str | Path) -> Durable:
    """PostgreSQL when the section names one, else the SQLite file at `sqlite_path`."""
    if section.effective_url():
        return open_postgres(section)
    return SqliteDb(sqlite_path)
