"""The session store interface. Times are epoch milliseconds passed in by the caller (its clock)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache

from ..ledger.chain import SignedHeads, StoredEntry
from .notes import MemoryNotes


@dataclass(frozen=True)
class StoredEvent:
    event_id: str
    project_id: str
    session_id: str
    event: str
    at: int  # epoch ms
    props: bytes  # canonical JSON

    @property
    def day(self) -> str:
        return utc_day(self.at)

DEFAULT_TTL_MS = 24 * 3600 * 1000
NO_BLOBS: Mapping[str, bytes] = {}
MAX_BLOBS_REMEMBERED = 4096  # blobs a process remembers writing (past it, one is written again)
MAX_MARKS = 4096  # marks a store only one process uses keeps (past it, the oldest go)


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

    Shared blobs (issue 17): data many sessions hold alike (the wallet directory's lists), kept
    once by content digest. A save hands over the blobs its bytes refer to; the store writes
    those it has not written lately, atomically with the session (a session is never stored
    referring to a blob that is not). A blob lives `2 × ttl_ms` after it was last written and
    a process writes it again when its own last write is older than `ttl_ms`, so a blob outlives
    every session saved referring to it (one only touched since can outlive it: its list is then
    fetched again, see `engine/shared.py`). Deleting a session leaves the blobs; `expire` drops them.
    """

    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        if ttl_ms <= 0:
            raise ValueError("ttl_ms must be positive")
        self.ttl_ms = ttl_ms
        self.blob_ttl_ms = 2 * ttl_ms
        self._ledger = BlobLedger(ttl_ms)
        self._marks: dict[str, int] = {}  # key -> until (ms): `mark` in a store only one process uses
        self._notes = MemoryNotes()  # `note` in a store only one process uses
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

    # ----- ownership, for stores several engine processes share (one owner per session)
    async def claim(self, session_id: str) -> None:
        """This process takes the session over (a rejoin landed here): from now on another
        process's saves of it are refused. A store only one process uses has nothing to do."""
        return None

    async def owns(self, session_id: str) -> bool:
        """Whether this process still holds the session (False: another one took it over, so a
        copy live here is stale)."""
        return True

    # ----- events for a session, routed to the process that owns it (pub/sub)
    worker_id = "local"  # this process, as an owner of sessions

    async def holder(self, session_id: str) -> str | None:
        """The process that owns the session (None: nobody does). A store only one process
        uses: this one."""
        return None

    async def publish(self, worker_id: str, data: bytes) -> int:
        """Send `data` to that process's listener; how many listeners got it (0: the process is
        gone). A store only one process uses has nobody else to tell."""
        return 0

    async def listen(self, handler: Callable[[bytes], Awaitable[None]]) -> None:
        """Call `handler` with what other processes publish to this one, until cancelled. A
        store only one process uses returns at once."""
        return None

    # ----- short-lived marks every process sharing the store sees (issue 42: the one-press social
    # window served by one host, looked for by the frame another host serves)
    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
        """Remember `key` until `now_ms + ttl_ms`. A store only one process uses keeps at most
        MAX_MARKS in memory, the oldest dropped first."""
        self._marks.pop(key, None)
        self._marks[key] = now_ms + ttl_ms  # in the order marked: the oldest first
        while self._marks:
            first = next(iter(self._marks))
            if len(self._marks) <= MAX_MARKS and self._marks[first] >= now_ms:
                break
            del self._marks[first]

    async def marked(self, key: str, now_ms: int) -> bool:
        until = self._marks.get(key)
        return until is not None and now_ms <= until

    # ----- short-lived notes every process sharing the store sees, each taken once (issue 42:
    # a social sign-in begun on one host and called back on another, its grant, a Farcaster
    # channel opened on one host and answered on another; store/notes.py)
    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        """Keep `data` under (kind, key) until `now_ms + ttl_ms`, at most `most` of the kind
        (the oldest dropped first)."""
        await self._notes.note(kind, key, data, now_ms, ttl_ms, most)

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        """The note, while it lasts; it stays."""
        return await self._notes.noted(kind, key, now_ms)

    async def take_note(self, kind: str, key: str, now_ms: int) -> bytes | None:
        """The note, deleted in the same step: of two processes taking it, one gets it."""
        return await self._notes.take_note(kind, key, now_ms)

    # ----- the audit log (append-only; it outlives the session's TTL)
    @abstractmethod
    async def audit_append(self, entry: StoredEntry) -> None:
        """Add the entry; an entry already at that (session, seq) is an error, never replaced."""

    @abstractmethod
    async def audit_entries(self, session_id: str) -> list[StoredEntry]:
        """The session's entries in seq order."""

    @abstractmethod
    async def audit_sessions(self) -> list[str]:
        """Every session with audit entries."""

    async def audit_head(self, session_id: str) -> StoredEntry | None:
        """The session's newest entry (the chain continues from it)."""
        entries = await self.audit_entries(session_id)
        return entries[-1] if entries else None

    # ----- signed chain heads (audit/heads.py): append-only too, apart from the entries, so a
    # log cut short or written again no longer matches what the engine signed
    @abstractmethod
    async def heads_append(self, signed: SignedHeads) -> None:
        """Add one signed set; a set already at that (worker, n) is an error, never replaced."""

    @abstractmethod
    async def heads_all(self) -> list[SignedHeads]:
        """Every signed set, by worker and then n."""

    # ----- analytics events kept by the engine itself (the self-hosted default)
    @abstractmethod
    async def events_add(self, event: StoredEvent) -> None:
        """Keep one tracking event (an event id seen before is ignored)."""

    def events_add_nowait(self, event: StoredEvent) -> bool:
        """`events_add` without waiting, when this store can keep the event at once (in memory,
        or held for a write-behind commit); False: it cannot, call `events_add`. Saves the
        analytics sink a task per event (issue 17)."""
        return False

    @abstractmethod
    async def event_counts(self) -> list[tuple[str, str, str, int]]:
        """(project, day as YYYY-MM-DD UTC, event, count), sorted."""

    @abstractmethod
    async def events_prune(self, before_ms: int) -> int:
        """Forget the events of every UTC day before the day of `before_ms` (retention:
        `[analytics] retention_days`); how many were forgotten (counted events for stores that
        keep only counts)."""

    async def close(self) -> None:
        return None

    def _expired(self, touched_ms: int, now_ms: int) -> bool:
        return now_ms - touched_ms > self.ttl_ms
