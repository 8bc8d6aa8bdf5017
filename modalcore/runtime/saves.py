"""Session saves that failed are kept and retried until they land (issue 27: a change the
visitor saw acknowledged must not be lost because the store was down for a while).

Every runner of an engine process saves through one `PendingSaves`. A save that fails (the
store raised) is kept: only the newest state per session (a later save replaces it), at most
`L.UNSAVED_SESSIONS` sessions and `L.UNSAVED_BYTES` bytes (past them the oldest waiting is
dropped, logged and counted). One retry round at a time tries them oldest first, backing off
from `L.SAVE_RETRY_FIRST_MS` to `L.SAVE_RETRY_MAX_MS` while the store keeps failing; a session
that has a save waiting sends its newer states to the same queue, so an older state never lands
over a newer one. A store that writes behind (SQLite) keeps and retries its own held writes and
says so through `failing()` / `held_unsaved()`; `health()` reports both.

A `durable` save (a wallet request is about to leave, runner.py) is tried at once and says
whether it landed: the runner does not send the request when it has not.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..rules import limits as L
from ..store.base import SessionStore, StoreWriteFailed
from ..ports.clock import Clock, TimerHandle

log = logging.getLogger(__name__)

Attempt = Literal["landed", "failed", "newer", "gone"]


@dataclass
class _Unsaved:
    data: bytes
    touched: int  # the save's time (the store's `touched`)
    blobs: Mapping[str, bytes]
    version: int = 0  # bumped when a newer state replaces it
    landed: bool = False  # it left the queue because it was written (not dropped or forgotten)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write of it at a time


@dataclass(frozen=True)
class SaveHealth:
    unsaved: int  # sessions whose newest state is not in the store
    reason: str | None  # why saves fail now (None: they do not)
    dropped: int  # unsaved states dropped past the bounds since the start


class PendingSaves:
    def __init__(self, store: SessionStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._unsaved: OrderedDict[str, _Unsaved] = OrderedDict()  # oldest failure first
        self._bytes = 0
        self._reason: str | None = None
        self._retry_ms = 0
        self._timer: TimerHandle | None = None
        self._round_task: asyncio.Task[None] | None = None
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._unsaved)

    def unsaved(self, session_id: str) -> tuple[bytes, Mapping[str, bytes]] | None:
        """The session's newest state when it is not in the store yet (restore from it)."""
        entry = self._unsaved.get(session_id)
        return None if entry is None else (entry.data, entry.blobs)

    def forget(self, session_id: str) -> None:
        """The session is deleted: its waiting state must not be written."""
        entry = self._unsaved.pop(session_id, None)
        if entry is not None:
            self._bytes -= len(entry.data)

    def health(self) -> SaveHealth:
        reason = f"session saves fail: {self._reason}" if self._unsaved and self._reason else None
        return SaveHealth(len(self._unsaved) + self.store.held_unsaved(),
                          reason or self.store.failing(), self.dropped)

    # ----- saving
    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes], *, durable: bool = False) -> bool:
        """Hand the session's state to the store; True when it landed (`durable`: committed).
        False: it waits here (or in the store that holds it) and is retried."""
        entry = self._unsaved.get(session_id)
        if entry is not None:
            # an older state waits: this one replaces it, in the same queue (never overtaking it)
            self._bytes += len(data) - len(entry.data)
            entry.data, entry.touched, entry.blobs = data, now_ms, blobs
            entry.version += 1
            self._bound(session_id)
            if not durable:
                return False
            return await self._attempt_newest(session_id, entry)
        try:
            await self.store.save(session_id, data, now_ms, blobs)
            if durable:
                await self.store.flush()
        except StoreWriteFailed:
            return False  # the store holds it and retries it itself (health says so)
        except Exception as error:
            self._keep(session_id, _Unsaved(data, now_ms, blobs), error)
            return False
        return True

    async def _attempt_newest(self, session_id: str, entry: _Unsaved) -> bool:
        for _ in range(3):  # a newer state arriving while one is written is written next
            outcome = await self._attempt(session_id, entry)
            if outcome != "newer":
                return outcome == "landed"
        return False

    async def _attempt(self, session_id: str, entry: _Unsaved) -> Attempt:
        async with entry.lock:
            if self._unsaved.get(session_id) is not entry:
                return "landed" if entry.landed else "gone"
            version = entry.version
            try:
                await self.store.save(session_id, entry.data, entry.touched, entry.blobs)
                await self.store.flush()
            except Exception as error:
                self._reason = _describe(error)
                return "failed"
            if entry.version != version:
                return "newer"
            if self._unsaved.get(session_id) is entry:
                del self._unsaved[session_id]
                self._bytes -= len(entry.data)
            entry.landed = True
            return "landed"

    def _keep(self, session_id: str, entry: _Unsaved, error: Exception) -> None:
        reason = _describe(error)
        if not self._unsaved:
            log.warning("session saves fail (%s): kept and retried", reason)
        self._reason = reason
        self._unsaved[session_id] = entry
        self._bytes += len(entry.data)
        self._bound(session_id)
        self._arm()

    def _bound(self, keep: str) -> None:
        while (len(self._unsaved) > L.UNSAVED_SESSIONS or self._bytes > L.UNSAVED_BYTES) \
                and len(self._unsaved) > 1:
            oldest = next(iter(self._unsaved))
            if oldest == keep:
                self._unsaved.move_to_end(oldest)
                continue
            entry = self._unsaved.pop(oldest)
            self._bytes -= len(entry.data)
            self.dropped += 1
            log.warning("session %s: its unsaved state was dropped (over %d sessions or %d bytes "
                        "waiting to be saved)", oldest, L.UNSAVED_SESSIONS, L.UNSAVED_BYTES)

    # ----- retrying
    def _arm(self) -> None:
        if self._timer is not None or self._round_task is not None or not self._unsaved:
            return
        self._retry_ms = min(L.SAVE_RETRY_MAX_MS, max(L.SAVE_RETRY_FIRST_MS, 2 * self._retry_ms))
        self._timer = self.clock.call_later(self._retry_ms, self._start_round)

    def _start_round(self) -> None:
        self._timer = None
        if self._round_task is None:
            self._round_task = asyncio.get_running_loop().create_task(self._round())

    async def _round(self) -> None:
        """Try the waiting states, oldest first; stop at the first failure (the store is down:
        trying the others now would only fail too) and back off."""
        try:
            for session_id in list(self._unsaved):
                entry = self._unsaved.get(session_id)
                if entry is None:
                    continue
                outcome = await self._attempt(session_id, entry)
                while outcome == "newer":
                    outcome = await self._attempt(session_id, entry)
                if outcome == "failed":
                    return
                self._retry_ms = 0  # progress: the next round starts again from the first delay
            if not self._unsaved:
                log.warning("session saves land again: every unsaved state is saved")
                self._reason = None
        finally:
            self._round_task = None
            self._arm()

    async def drain(self, timeout_s: float) -> int:
        """At shutdown: retry until every waiting state landed (and the store's held writes are
        committed), at most `timeout_s`; how many sessions' states did not land."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._round_task is not None:
                await asyncio.shield(self._round_task)
            if self._unsaved:
                self._start_round()
                if self._round_task is not None:
                    await asyncio.shield(self._round_task)
            if self.store.failing() is not None:
                try:
                    await self.store.flush()
                except Exception:
                    pass
            left = len(self._unsaved) + self.store.held_unsaved()
            remaining = deadline - time.monotonic()
            if left == 0 or remaining <= 0:
                if left:
                    log.error("shutting down with %d sessions' newest state unsaved (%s)", left,
                              self.health().reason)
                return left
            await asyncio.sleep(min(remaining, L.SAVE_RETRY_MAX_MS / 1000))


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__
