"""The audit log: per session, append-only and hash-chained, of what matters to a visitor's
security (connects, disconnects, sign-ins, signature and transaction requests and outcomes).

Entries are derived at the runtime edge from what each update produced (`derive`), chained
(`ledger/chain.py`) and written through the session store's append-only audit table
(`observer`). The operator's page is `server/audit_routes.py`; `audit verify` and `audit show`
are `ops/audit.py` and `ops/audit_show.py`.
"""
