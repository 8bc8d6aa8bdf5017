"""Durable records behind one interface (issue 42): the embedded wallet's stores (sealed keys,
device keys, passkeys, email codes, mail budgets, the sponsoring ledger, send intents) write
through a `Durable` database, a SQLite file on one host (the default, `sqlite.py`) or a shared
PostgreSQL (`[database] url`, `postgres.py`) for several hosts. `schema.py` holds PostgreSQL's
migrations (`modalcore db upgrade`), `copy.py` moves a one-host SQLite file into PostgreSQL."""
