"""Audit entries and their chain: each entry holds the sha256 of the previous entry's
canonical bytes; `verify_chain` finds the first broken link."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

GENESIS = "0" * 64  # what the first entry of a session holds as its previous hash


@dataclass(frozen=True)
class StoredEntry:
    """One row of the audit table: the canonical bytes of the entry and their sha256."""

    session_id: str
    seq: int
    body: bytes
    hash: str


@dataclass(frozen=True)
class SignedHeads:
    """One stored set of signed chain heads (`heads.py`): who signed it (`worker`, `n`), its
    canonical body and signature."""

    worker: str
    n: int
    body: bytes
    signature: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.body).hexdigest()


@dataclass(frozen=True)
class Broken:
    """The first link that does not hold."""

    session_id: str
    seq: int
    reason: str

    def __str__(self) -> str:
        return f"session {self.session_id} entry {self.seq}: {self.reason}"


# `json.dumps` with any option builds an encoder per call; this one is built once (it keeps no state)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical(value: object) -> bytes:
    """JSON with sorted keys, no spaces, UTF-8: the bytes that are hashed."""
    return _CANONICAL.encode(value).encode()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_entry(session_id: str, seq: int, at: int, kind: str, data: dict[str, object],
               prev: str) -> StoredEntry:
    body = canonical({"session": session_id, "seq": seq, "at": at, "kind": kind, "data": data,
                      "prev": prev})
    return StoredEntry(session_id, seq, body, digest(body))


def entry_json(entry: StoredEntry) -> dict[str, object]:
    """What the operator endpoint shows for one entry."""
    value: dict[str, object] = json.loads(entry.body)
    value["hash"] = entry.hash
    return value


def verify_chain(entries: Iterable[StoredEntry]) -> tuple[int, Broken | None]:
    """Check one session's entries (in seq order): how many held, and the first broken link."""
    prev = GENESIS
    expected = 1
    count = 0
    for entry in entries:
        where = (entry.session_id, entry.seq)
        if entry.seq != expected:
            return count, Broken(*where, f"expected entry {expected} (an entry is missing)")
        if digest(entry.body) != entry.hash:
            return count, Broken(*where, "its bytes do not match its hash (edited)")
        try:
            value = json.loads(entry.body)
        except ValueError:
            return count, Broken(*where, "its bytes are not JSON")
        if not isinstance(value, dict):
            return count, Broken(*where, "its bytes are not a JSON object")
        if value.get("prev") != prev:
            if expected == 1:
                return count, Broken(*where, "it does not start the log (its prev is not 64 zeros)")
            # entry k-1's bytes match its (new) hash, but entry k holds another: k-1 was written
            # again, hash and all (or k's link was, with k's hash made anew)
            return count - 1, Broken(
                entry.session_id, entry.seq - 1,
                f"it was written again: its hash is not the one entry {entry.seq} holds "
                f"(or entry {entry.seq}'s link to it was changed)")
        if value.get("session") != entry.session_id or value.get("seq") != entry.seq:
            return count, Broken(*where, "its bytes name another session or position")
        prev = entry.hash
        expected += 1
        count += 1
    return count, None
