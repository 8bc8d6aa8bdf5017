"""PostgreSQL's schema as numbered migrations (issue 42): `modalcore db upgrade` applies those a
database lacks, each in its own transaction with the version row; an engine refuses to start on a
database whose version is older than `VERSION` (`SchemaBehind`, one line) or newer
(`SchemaAhead`). A migration, once released, is never edited: a change is a new one.

SQLite files keep creating their own tables (each store's `CREATE TABLE IF NOT EXISTS`): one
host upgrades itself. The tables here hold the same columns (tests/durable checks they agree);
integers are BIGINT (milliseconds, sign counts up to 2^32), blobs BYTEA, and the mail budget's
event rows carry an explicit `rowid` (SQLite's implicit one) so both sides run the same SQL.
"""

from __future__ import annotations

from .db import DatabaseError, Durable, SchemaAhead, SchemaBehind

_VERSION_TABLE = "CREATE TABLE IF NOT EXISTS modalcore_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)"

# 1: the embedded wallet's records (embedded.db of one host)
_EMBEDDED = """
CREATE TABLE embedded_keys (
    identity TEXT PRIMARY KEY,
    address TEXT NOT NULL UNIQUE,
    master_id TEXT NOT NULL,
    wrapped_key BYTEA NOT NULL,
    sealed_secret BYTEA NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE email_codes (
    email TEXT PRIMARY KEY,
    digest BYTEA NOT NULL,
    issued_ms BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    used BIGINT NOT NULL
);
CREATE TABLE mail_budget (
    rowid BIGSERIAL PRIMARY KEY,
    key TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);
CREATE INDEX mail_budget_key ON mail_budget (key, at_ms);
CREATE TABLE device_keys (
    key_id TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    spki BYTEA NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE INDEX device_keys_identity ON device_keys (identity, created_ms);
CREATE TABLE passkeys (
    credential_id TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    public_key BYTEA NOT NULL,
    sign_count BIGINT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE INDEX passkeys_identity ON passkeys (identity, created_ms);
CREATE TABLE passkey_challenges (
    challenge TEXT PRIMARY KEY,
    expires_ms BIGINT NOT NULL
);
CREATE TABLE sponsored_wei (
    chain TEXT NOT NULL,
    account TEXT NOT NULL,
    day BIGINT NOT NULL,
    wei TEXT NOT NULL,
    PRIMARY KEY (chain, account, day)
);
CREATE INDEX sponsored_wei_day ON sponsored_wei (day);
CREATE TABLE sponsored_scope_wei (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    chain TEXT NOT NULL,
    day BIGINT NOT NULL,
    wei TEXT NOT NULL,
    PRIMARY KEY (scope, key, chain, day)
);
CREATE INDEX sponsored_scope_wei_day ON sponsored_scope_wei (day);
CREATE TABLE sponsor_caps_reached (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    chain TEXT NOT NULL,
    day BIGINT NOT NULL,
    PRIMARY KEY (scope, key, chain, day)
);
CREATE TABLE sponsor_cap_refusals (
    scope TEXT PRIMARY KEY,
    refused BIGINT NOT NULL
);
CREATE TABLE send_intents (
    session TEXT NOT NULL,
    eid TEXT NOT NULL,
    kind TEXT NOT NULL,
    chain TEXT NOT NULL,
    sender TEXT NOT NULL,
    nonce TEXT NOT NULL,
    hash TEXT NOT NULL,
    payload TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (session, eid)
);
CREATE INDEX send_intents_at ON send_intents (at);
"""

# 2: sign-in nonces and sessions (siwx.db of one host), the engine's own names (names.db)
_SIGN_IN_AND_NAMES = """
CREATE TABLE siwx_nonces (
    rowid BIGSERIAL UNIQUE,
    nonce TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    used BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX siwx_nonces_issued ON siwx_nonces (issued_at);
CREATE INDEX siwx_nonces_session ON siwx_nonces (session_key, used);
CREATE TABLE siwx_sessions (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    chain_id BIGINT NOT NULL,
    domain TEXT NOT NULL,
    message TEXT NOT NULL,
    signature TEXT NOT NULL,
    data TEXT NOT NULL,
    cacao TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);
CREATE INDEX siwx_sessions_owner ON siwx_sessions (address, domain);
CREATE TABLE names (
    name TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    registered_at BIGINT NOT NULL
);
CREATE INDEX names_address ON names (address)
"""

# 3: each identity's passkey user handle (random, so an email alone does not name its passkeys)
_PASSKEY_USERS = """
CREATE TABLE passkey_users (
    identity TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE
)
"""

# the statements of migration N are MIGRATIONS[N - 1]
MIGRATIONS: tuple[str, ...] = (_EMBEDDED, _SIGN_IN_AND_NAMES, _PASSKEY_USERS)
VERSION = len(MIGRATIONS)
# the tables of the embedded wallet's file, in the order `db copy` moves them
EMBEDDED_TABLES = ("embedded_keys", "email_codes", "mail_budget", "device_keys", "passkeys",
                   "passkey_users", "passkey_challenges", "sponsored_wei", "sponsored_scope_wei", "sponsor_caps_reached",
                   "sponsor_cap_refusals", "send_intents")
# the tables of siwx.db and names.db (`db copy --siwx PATH --names PATH`)
SIWX_TABLES = ("siwx_nonces", "siwx_sessions")
NAMES_TABLES = ("names",)


def version(db: Durable) -> int:
    """The database's schema version (0: never upgraded)."""
    if db.kind != "postgres":
        return VERSION  # a SQLite file upgrades itself
    exists = db.execute("SELECT to_regclass('modalcore_schema') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = db.execute("SELECT version FROM modalcore_schema WHERE id = 1").fetchone()
    return 0 if row is None else int(str(row[0]))


def check(db: Durable) -> None:
    """Raises SchemaBehind / SchemaAhead unless the database is at this engine's version."""
    found = version(db)
    if found < VERSION:
        raise SchemaBehind(found, VERSION)
    if found > VERSION:
        raise SchemaAhead(found, VERSION)


def upgrade(db: Durable) -> list[int]:
    """Apply the migrations the database lacks (each with its version, in one transaction;
    hosts upgrading at once wait for each other); returns the versions applied."""
    if db.kind != "postgres":
        raise DatabaseError("only a PostgreSQL database is upgraded: a SQLite file upgrades itself")
    applied: list[int] = []
    with db.transaction(["modalcore schema"]) as tx:
        tx.execute(_VERSION_TABLE)
    for number, statements in enumerate(MIGRATIONS, start=1):
        with db.transaction(["modalcore schema"]) as tx:
            row = tx.execute("SELECT version FROM modalcore_schema WHERE id = 1").fetchone()
            found = 0 if row is None else int(str(row[0]))
            if found > VERSION:
                raise SchemaAhead(found, VERSION)
            if found >= number:
                continue
            for statement in (s.strip() for s in statements.split(";")):
                if statement:
                    tx.execute(statement)
            tx.execute("INSERT INTO modalcore_schema (id, version) VALUES (1, ?) "
                       "ON CONFLICT (id) DO UPDATE SET version = excluded.version", (number,))
            applied.append(number)
    return applied
