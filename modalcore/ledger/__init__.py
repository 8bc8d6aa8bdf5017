"""The audit log's hash chain: its entries, their digests and the signed heads (pure; the session
store writes it, the audit package reads and signs it)."""
