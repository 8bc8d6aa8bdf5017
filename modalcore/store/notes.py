"""Short-lived notes every engine process sharing the session store sees (issue 42): what a flow
needs at a later step that may land on another host (a social sign-in between popup and
callback, its one-approval grant, a Farcaster channel and its verified answer).

A note is bytes under (kind, key), kept until `now_ms + ttl_ms`, at most `most` of a kind (the
oldest dropped first), and taken once: `take_note` deletes it and returns it in one step, so of
two processes taking it one gets it. Callers name a note by a digest of its token, never the
token itself (a grant's or a channel's token is a bearer secret). `MemoryNotes` is the store of
one process (the memory and SQLite stores); RedisNotes (redis_notes.py) the shared one."""

from __future__ import annotations

from collections import OrderedDict


class MemoryNotes:
    def __init__(self) -> None:
        self._kinds: dict[str, OrderedDict[str, tuple[bytes, int]]] = {}  # kind -> key -> (data, until)

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        """Keep `data` under (kind, key) until `now_ms + ttl_ms`; past `most` notes of the kind,
        and past their time, the oldest go."""
        notes = self._kinds.setdefault(kind, OrderedDict())
        notes.pop(key, None)
        notes[key] = (data, now_ms + ttl_ms)  # in the order noted: the oldest first
        while notes:
            first = next(iter(notes.values()))
            if len(notes) <= most and first[1] >= now_ms:
                break
            notes.popitem(last=False)

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        """The note, while it lasts (it stays)."""
        notes = self._kinds.get(kind)
        found = notes.get(key) if notes is not None else None
        return found[0] if found is not None and now_ms <= found[1] else None

    async def take_note(self, kind: str, key: str, now_ms: int) -> bytes | None:
        """The note, deleted in the same step (None: there is none, it expired or was taken)."""
        notes = self._kinds.get(kind)
        found = notes.pop(key, None) if notes is not None else None
        return found[0] if found is not None and now_ms <= found[1] else None

    def held(self, kind: str) -> int:
        """How many notes of `kind` are kept (expired ones included until they are swept)."""
        return len(self._kinds.get(kind, ()))
