"""The audit log: per session, append-only and hash-chained, of what matters to a visitor's
security (connects, disconnects, sign-ins, signature and transaction requests and outcomes).

Entries are derived at the runtime edge from what each update produced (`derive`), chained
(`chain`) and written through the session store's append-only audit table (`observer`).
"""
