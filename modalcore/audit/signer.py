"""Signs the heads of the audit logs that grew, at a bounded rate (issue 31).

An ECDSA signature with eth-account costs milliseconds of pure Python (3 to 11 ms measured),
some twenty times an intent's whole cost: it is never made per entry. The observer hands each
new head here; at most once per `SIGN_INTERVAL_MS` one signature covers every head that moved
since the last (up to `MAX_HEADS_PER_SIGNATURE`; more wait for the next), made in a thread so the
event loop keeps serving. What a crash loses is the last interval's heads: those entries stay in
the log, reported by `audit verify` as not yet anchored.

Each signed set is stored (`SessionStore.audit.append_heads`) and written to the operator's log as
one JSON line (`audit heads signed {...}`) with its digest and signature: kept off the box (log
shipping, or `audit export-heads` run by a job), those lines anchor the log where an operator
with the store, or even with the engine's key, cannot reach (`audit verify --anchors`).
At most one such line a minute is written at INFO (issue 39 item 8: a walk of the demo wrote
47): the others go to DEBUG, and the newest set signed since the last INFO line is written at
INFO when the minute is up (or at shutdown). Each set holds the digest of the one before, so
the newest anchored set anchors every earlier one of its process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable

from eth_account.signers.local import LocalAccount

from ..store.base import SessionStore
from ..ledger.chain import GENESIS, digest
from .heads import MAX_HEADS_PER_SIGNATURE, Head, SignedHeads, make_body, sign

log = logging.getLogger(__name__)

SIGN_INTERVAL_MS = 1000
ANCHOR_LOG_INTERVAL_MS = 60_000  # one `audit heads signed` INFO line a minute at most
RETRY_MS = 5000  # after the store refused a set: the heads wait and go again
MAX_HEADS_WAITING = 100_000  # past it (a store down for long) the oldest are dropped: unanchored, logged


def anchor_line(signed: SignedHeads, sessions: int) -> str:
    """What the operator's log and `audit export-heads` carry for one set (JSON)."""
    return json.dumps({"worker": signed.worker, "n": signed.n, "digest": signed.digest,
                       "signature": signed.signature, "sessions": sessions},
                      separators=(",", ":"))


class HeadSigner:
    def __init__(self, store: SessionStore, key: LocalAccount, now: Callable[[], int], *,
                 interval_ms: int = SIGN_INTERVAL_MS, worker: str | None = None,
                 log_interval_ms: int = ANCHOR_LOG_INTERVAL_MS) -> None:
        self.store = store
        self.key = key
        self.now = now
        self.interval_ms = interval_ms
        self.log_interval_ms = log_interval_ms
        # this process's own chain of signed sets, named by the id the worker goes by everywhere
        # (metrics, /healthz, the store's lease: server/app.py); a fresh one per process
        self.worker = worker if worker is not None else secrets.token_hex(8)
        self.signed = 0  # sets signed (figures, tests)
        self._n = 0
        self._prev = GENESIS
        self._dirty: dict[str, Head] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._logged_at: int | None = None  # when the last INFO line was written
        self._unlogged: str | None = None  # the newest set's line, written at DEBUG only so far
        self._log_timer: asyncio.TimerHandle | None = None

    def advanced(self, session_id: str, seq: int, hash_: str) -> None:
        """A session's log has a new head: it is signed within `interval_ms`."""
        self._dirty.pop(session_id, None)  # re-inserted last: the oldest wait first
        self._dirty[session_id] = Head(session_id, seq, hash_)
        if len(self._dirty) > MAX_HEADS_WAITING:
            dropped = next(iter(self._dirty))
            del self._dirty[dropped]
            log.warning("audit: more than %d heads wait to be signed; session %s's is dropped "
                        "(its newest entries stay unanchored)", MAX_HEADS_WAITING, dropped)
        self._arm(self.interval_ms)

    def _arm(self, delay_ms: int) -> None:
        if self._timer is None and self._task is None:
            self._timer = asyncio.get_running_loop().call_later(delay_ms / 1000, self._kick)

    def _kick(self) -> None:
        self._timer = None
        if self._task is None and self._dirty:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        delay = self.interval_ms
        try:
            if not await self._sign_some():
                delay = RETRY_MS
        finally:
            self._task = None
        if self._dirty:
            self._arm(delay)

    async def _sign_some(self) -> bool:
        """Sign and store one set of the oldest waiting heads; False when the store failed."""
        heads = list(self._dirty.values())[:MAX_HEADS_PER_SIGNATURE]
        for head in heads:
            del self._dirty[head.session_id]
        heads.sort(key=lambda h: h.session_id)
        body = make_body(self.worker, self._n + 1, self.now(), self._prev, self.key.address, heads)
        signature = await asyncio.to_thread(sign, self.key, body)
        signed = SignedHeads(self.worker, self._n + 1, body, signature)
        try:
            await self.store.audit.append_heads(signed)
        except Exception:
            log.exception("audit: storing signed heads %s/%d failed", self.worker, signed.n)
            for head in heads:  # a newer head that came meanwhile stands
                self._dirty.setdefault(head.session_id, head)
            return False
        self._n, self._prev = signed.n, digest(body)
        self.signed += 1
        self._log_anchor(anchor_line(signed, len(heads)))
        return True

    def _log_anchor(self, line: str) -> None:
        """INFO at most once per `log_interval_ms`; meanwhile DEBUG, the newest line kept
        for INFO when the interval is up."""
        now = self.now()
        if self._logged_at is None or now - self._logged_at >= self.log_interval_ms:
            self._write_anchor(line, now)
            return
        log.debug("audit heads signed %s", line)
        self._unlogged = line
        if self._log_timer is None:
            delay_ms = self._logged_at + self.log_interval_ms - now
            self._log_timer = asyncio.get_running_loop().call_later(delay_ms / 1000, self._log_due)

    def _write_anchor(self, line: str, now: int) -> None:
        log.info("audit heads signed %s", line)
        self._logged_at, self._unlogged = now, None
        if self._log_timer is not None:
            self._log_timer.cancel()
            self._log_timer = None

    def _log_due(self) -> None:
        self._log_timer = None
        if self._unlogged is not None:
            self._write_anchor(self._unlogged, self.now())

    async def flush(self) -> None:
        """Sign what waits now (the engine stopping)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        task = self._task
        if task is not None:
            await asyncio.shield(task)
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        while self._dirty:
            if not await self._sign_some():
                break
        if self._unlogged is not None:  # the engine stops: the newest set reaches the log now
            self._write_anchor(self._unlogged, self.now())
