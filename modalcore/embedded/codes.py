"""Email codes as a service: the pure policy (otp.py) over the SQLite store (codestore.py).

Time and randomness are passed in by the caller (the engine's command runner), so the same
calls give the same results in tests.
"""

from __future__ import annotations

from .codestore import CodeStore
from .otp import Verification, issue, normalize_email, verify


class EmailCodes:
    def __init__(self, store: CodeStore, server_key: bytes) -> None:
        if len(server_key) < 32:
            raise ValueError("the code key must be at least 32 bytes")
        self._store = store
        self._key = server_key

    def request(self, email: object, now_ms: int, random_bytes: bytes) -> tuple[str, str]:
        """(normalized email, new code) or raises InvalidEmail / RateLimited, storing nothing."""
        address = normalize_email(email)
        record, code = issue(self._store.get(address), address, random_bytes, self._key, now_ms)
        self._store.put(record)
        return address, code

    def submit(self, email: object, code: object, now_ms: int) -> Verification:
        address = normalize_email(email)
        result, changed = verify(self._store.get(address), address, code, self._key, now_ms)
        if changed is not None:
            self._store.put(changed)
        return result
