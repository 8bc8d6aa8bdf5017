"""The session store interface. Times are epoch milliseconds passed in by the caller (its clock)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import TYPE_CHECKING

from .leases import Leases
from .notes import MemoryNotes, Notes

if TYPE_CHECKING:
    from .analytics import Analytics
    from .audit_log import AuditLog


@dataclass(frozen=True, init=False)
class StoredEvent:
    event_id: str
    project_id: str
    session_id: str
    event: str
    at: int  # epoch ms
    props: bytes  # canonical JSON

    def __init__(self, event_id: str, project_id: str, session_id: str, event: str, at: int, props: bytes) -> None:
        # one per analytics event: `object.__setattr__` per field (a frozen dataclass's own
        # __init__) cost ~1 k instructions a field
        self.__dict__.update(event_id=event_id, project_id=project_id, session_id=session_id, event=event, at=at,
                             props=props)

    @property
    def day(self) -> str:
        return utc_day(self.at)

DEFAULT_TTL_MS = 24 * 3600 * 1000
NO_BLOBS: Mapping[str, bytes] = {}
MAX_BLOBS_REMEMBERED = 4096  # blobs a process remembers writing (past it, one is written again)


def utc_day(ms: int) -> str:
    return _day_name(ms // 86_400_000)


@lru_cache(maxsize=8)
def _day_name(day: int) -> str:
    """The UTC date of day number `day` since the epoch (formatting a date costs more than the
    rest of keeping an event: one name per day, cached)."""
    return datetime.fromtimestamp(day * 86_400, tz=timezone.utc).strftime("%Y-%m-%d")


class StoreWriteFailed(RuntimeError):
    """Writes the store held could not be committed (`flush`): they are kept and retried."""


class AuditConflict(RuntimeError):
    """An audit entry at that (session, seq) exists: the log is append-only."""


class BlobLedger:
    """The shared blobs this process wrote, and when: a save writes a blob only when it is not
    here or was written more than a TTL ago (which renews its life in the store). Bounded: a
    blob forgotten is merely written again."""

    def __init__(self, ttl_ms: int) -> None:
        self.ttl_ms = ttl_ms
        self._written: OrderedDict[str, int] = OrderedDict()

    def to_write(self, blobs: Mapping[str, bytes], now_ms: int) -> dict[str, bytes]:
        written = self._written
        fresh: dict[str, bytes] = {}
        for digest, data in blobs.items():
            at = written.get(digest)
            if at is None or now_ms - at > self.ttl_ms:
                fresh[digest] = data
        return fresh

    def wrote(self, digests: Iterable[str], now_ms: int) -> None:
        for digest in digests:
            self._written[digest] = now_ms
            self._written.move_to_end(digest)
        while len(self._written) > MAX_BLOBS_REMEMBERED:
            self._written.popitem(last=False)

    def forget(self, digests: Iterable[str]) -> None:
        for digest in digests:
            self._written.pop(digest, None)


class SessionStore(ABC):
    """Persistent session state by session id; a session idle for longer than `ttl_ms` is gone.

    The store's methods are the saved sessions themselves (records); what else it keeps is one
    object per concern, each with its own interface (issue 41: one reader holds each at once):
    - `leases`: which engine process owns a session, and the channel to it (store/leases.py);
    - `notes`: short-lived marks and notes every process sharing the store sees (store/notes.py);
    - `audit`: the append-only audit log and its signed chain heads (store/audit_log.py);
    - `analytics`: the analytics events kept by the engine itself (store/analytics.py).
    A store only one process uses keeps the first two in this process (the defaults here); each
    store gives its own `audit` and `analytics`.

    Shared blobs (issue 17): data many sessions hold alike (the wallet directory's lists), kept
    once by content digest. A save hands over the blobs its bytes refer to; the store writes
    those it has not written lately, atomically with the session (a session is never stored
    referring to a blob that is not). A blob lives `2 × ttl_ms` after it was last written and
    a process writes it again when its own last write is older than `ttl_ms`, so a blob outlives
    every session saved referring to it (one only touched since can outlive it: its list is then
    fetched again, see `engine/shared.py`). Deleting a session leaves the blobs; `expire` drops them.
    """

    leases: Leases
    notes: Notes
    audit: AuditLog
    analytics: Analytics

    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        if ttl_ms <= 0:
            raise ValueError("ttl_ms must be positive")
        self.ttl_ms = ttl_ms
        self.blob_ttl_ms = 2 * ttl_ms
        self._ledger = BlobLedger(ttl_ms)
        self.leases = Leases()  # one process owns every session: a shared store replaces both
        self.notes = MemoryNotes()
        self.bytes_written = 0  # session bytes and blobs handed to the store to write (figures)

    @abstractmethod
    async def load(self, session_id: str, now_ms: int) -> bytes | None:
        """The saved bytes, or None when there are none or they expired."""

    @abstractmethod
    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        """Write the bytes and mark the session used at `now_ms`; with `blobs` (digest -> bytes,
        what the bytes refer to) each blob not written lately is written in the same step."""

    @abstractmethod
    async def load_blobs(self, digests: Iterable[str], now_ms: int) -> dict[str, bytes]:
        """The shared blobs the store has, of those asked (a missing one is simply absent)."""

    async def flush(self) -> None:
        """Make every save made so far durable before returning (a store that writes behind
        commits what it holds; the others have nothing to do). The runner calls it before a
        browser request leaves (write-ahead, issue 17). StoreWriteFailed when it cannot."""
        return None

    # ----- writes held behind that fail (issue 27): a store that writes behind keeps them and
    # retries by itself; these say so to health checks and metrics. A store that writes as it
    # is called raises from `save` instead (the runtime keeps and retries: runtime/saves.py).
    on_write_error: Callable[[], None] | None = None  # called for each held write that failed

    def failing(self) -> str | None:
        """Why held writes are failing now (None: they are not)."""
        return None

    def held_unsaved(self) -> int:
        """Sessions whose newest save is held because committing it fails."""
        return 0

    @abstractmethod
    async def delete(self, session_id: str) -> None: ...

    @abstractmethod
    async def touch(self, session_id: str, now_ms: int) -> None:
        """Mark the session used at `now_ms` without rewriting it."""

    @abstractmethod
    async def expire(self, now_ms: int) -> int:
        """Drop every session idle for longer than the TTL; how many were dropped."""

    @abstractmethod
    async def count(self) -> int: ...

    async def close(self) -> None:
        return None

    def _expired(self, touched_ms: int, now_ms: int) -> bool:
        return now_ms - touched_ms > self.ttl_ms
