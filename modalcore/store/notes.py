"""Short-lived marks and notes every engine process sharing the session store sees (issue 42,
`SessionStore.notes`): what a flow needs at a later step that may land on another host.

A mark is a key remembered for a while (the one-press social window served by one host, looked
for by the frame another host serves). A note is bytes under (kind, key) (a social sign-in
between popup and callback, its one-approval grant, a Farcaster channel and its verified
answer), kept until `now_ms + ttl_ms`, at most `most` of a kind (the oldest dropped first), and
taken once: `take` deletes it and returns it in one step, so of two processes taking it one
gets it. Callers name a note by a digest of its token, never the token itself (a grant's or a
channel's token is a bearer secret). `MemoryNotes` is the store of one process (the memory and
SQLite stores); RedisNotes (redis_notes.py) the shared one."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict

MAX_MARKS = 4096  # marks a store only one process uses keeps (past it, the oldest go)


class Notes(ABC):
    @abstractmethod
    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
        """Remember `key` until `now_ms + ttl_ms`."""

    @abstractmethod
    async def marked(self, key: str, now_ms: int) -> bool:
        """Whether `key` is remembered still."""

    @abstractmethod
    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        """Keep `data` under (kind, key) until `now_ms + ttl_ms`, at most `most` of the kind
        (the oldest dropped first)."""

    @abstractmethod
    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        """The note, while it lasts; it stays."""

    @abstractmethod
    async def take(self, kind: str, key: str, now_ms: int) -> bytes | None:
        """The note, deleted in the same step (None: there is none, it expired or was taken):
        of two processes taking it, one gets it."""


class MemoryNotes(Notes):
    """Marks and notes in this process: at most MAX_MARKS marks, the oldest dropped first."""

    def __init__(self) -> None:
        self._marks: dict[str, int] = {}  # key -> until (ms), in the order marked
        self._kinds: dict[str, OrderedDict[str, tuple[bytes, int]]] = {}  # kind -> key -> (data, until)

    async def mark(self, key: str, now_ms: int, ttl_ms: int) -> None:
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

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        """Past `most` notes of the kind, and past their time, the oldest go."""
        notes = self._kinds.setdefault(kind, OrderedDict())
        notes.pop(key, None)
        notes[key] = (data, now_ms + ttl_ms)  # in the order noted: the oldest first
        while notes:
            first = next(iter(notes.values()))
            if len(notes) <= most and first[1] >= now_ms:
                break
            notes.popitem(last=False)

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        notes = self._kinds.get(kind)
        found = notes.get(key) if notes is not None else None
        return found[0] if found is not None and now_ms <= found[1] else None

    async def take(self, kind: str, key: str, now_ms: int) -> bytes | None:
        notes = self._kinds.get(kind)
        found = notes.pop(key, None) if notes is not None else None
        return found[0] if found is not None and now_ms <= found[1] else None

    def held(self, kind: str) -> int:
        """How many notes of `kind` are kept (expired ones included until they are swept)."""
        return len(self._kinds.get(kind, ()))

    def marks_held(self) -> int:
        """How many marks are kept (expired ones included until they are swept)."""
        return len(self._marks)
