"""Email codes as a service: the pure policy (otp.py) over the SQLite store (codestore.py).

Time and randomness are passed in by the caller (the engine's command runner), so the same
calls give the same results in tests.

A code belongs to the email and to the requester (the session) that asked it (issue 38): it is
checked only for that requester, so a stranger asking codes for someone's email and typing wrong
ones locks only the codes it asked, never the one the owner's browser asked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .codestore import CodeStore
from .otp import CodeRecord, Verification, issue, normalize_email, verify


@dataclass(frozen=True)
class IssuedCode:
    """A code just stored for `email`, and what the email's row held before it."""

    email: str
    code: str
    digest: bytes
    previous: CodeRecord | None
    row: str = ""  # the store's key: the email and the requester


def row_key(email: str, requester: str) -> str:
    return f"{email}\x00{requester}" if requester else email


class EmailCodes:
    def __init__(self, store: CodeStore, server_key: bytes) -> None:
        if len(server_key) < 32:
            raise ValueError("the code key must be at least 32 bytes")
        self._store = store
        self._key = server_key

    def request(self, email: object, now_ms: int, random_bytes: bytes, requester: str = "") -> tuple[str, str]:
        """(normalized email, new code) or raises InvalidEmail / RateLimited, storing nothing."""
        issued = self.issue(email, now_ms, random_bytes, requester)
        return issued.email, issued.code

    @property
    def store(self) -> CodeStore:
        return self._store

    def issue(self, email: object, now_ms: int, random_bytes: bytes, requester: str = "") -> IssuedCode:
        """A new code stored for the email and `requester` (raises InvalidEmail / RateLimited,
        storing nothing); `withdraw` takes it back if its mail cannot be sent."""
        address = normalize_email(email)
        row = row_key(address, requester)
        with self._store.held(row) as store:
            return self.issue_held(store, address, row, now_ms, random_bytes)

    def issue_held(self, store: CodeStore, address: str, row: str, now_ms: int, random_bytes: bytes) -> IssuedCode:
        """`issue` inside a transaction that holds `row`'s lock (`store` bound to it)."""
        previous = store.get(row)
        record, code = issue(previous, address, random_bytes, self._key, now_ms)
        store.put(replace(record, email=row))
        return IssuedCode(address, code, record.digest, previous, row)

    def withdraw(self, issued: IssuedCode) -> bool:
        """The mail with `issued` was not sent: the email's row is as it was before, so the 30 s
        window (which starts only with a sent code) does not hold the visitor back. A newer code
        stored meanwhile is left alone."""
        return self._store.restore(issued.row or issued.email, issued.digest, issued.previous)

    def submit(self, email: object, code: object, now_ms: int, requester: str = "") -> Verification:
        """The code typed for the email's code that `requester` asked."""
        address = normalize_email(email)
        row = row_key(address, requester)
        with self._store.held(row) as store:  # one check at a time per row, across hosts
            return self.submit_held(store, address, store.get(row), code, now_ms)

    def submit_held(self, store: CodeStore, address: str, record: CodeRecord | None, code: object,
                    now_ms: int) -> Verification:
        """`submit` inside a transaction that holds the row's lock (`store` bound to it), `record`
        the row as read there."""
        result, changed = verify(record, address, code, self._key, now_ms)
        if changed is not None:
            store.put(changed)
        return result
