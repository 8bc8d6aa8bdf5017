"""The head signer keeps writes cheap (issue 31): a signature costs milliseconds, so it is made
at most once per interval per process, over every head that moved, never per entry."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from eth_account import Account

from modalcore.ledger.chain import GENESIS, SignedHeads
from modalcore.audit.heads import MAX_HEADS_PER_SIGNATURE, read_body
from modalcore.audit.signer import HeadSigner, anchor_line
from modalcore.audit.verify import verify_store
from modalcore.store.memory import MemoryStore

KEY = Account.create()


def test_rule_many_entries_within_an_interval_cost_one_signature_over_their_newest_heads() -> None:
    async def run() -> None:
        store = MemoryStore()
        signer = HeadSigner(store, KEY, lambda: 5, interval_ms=60_000)
        for seq in range(1, 51):
            for session in ("a", "b", "c"):
                signer.advanced(session, seq, f"{session}{seq}")
        assert await store.audit.all_heads() == []  # nothing signed per entry
        await signer.flush()
        sets = await store.audit.all_heads()
        assert signer.signed == len(sets) == 1
        body = read_body(sets[0].body)
        assert [(h.session_id, h.seq, h.hash) for h in body.heads] == [
            ("a", 50, "a50"), ("b", 50, "b50"), ("c", 50, "c50")]
        assert (body.worker, body.n, body.prev, body.signer) == (signer.worker, 1, GENESIS, KEY.address)

    asyncio.run(run())


def test_rule_heads_are_signed_by_the_interval_without_a_flush() -> None:
    async def run() -> None:
        store = MemoryStore()
        signer = HeadSigner(store, KEY, lambda: 5, interval_ms=20)
        signer.advanced("a", 1, "h1")
        while not await store.audit.all_heads():
            await asyncio.sleep(0.01)
        signer.advanced("a", 2, "h2")
        while len(await store.audit.all_heads()) < 2:
            await asyncio.sleep(0.01)
        first, second = await store.audit.all_heads()
        assert read_body(second.body).prev == first.digest  # a process's sets form a chain
        await signer.flush()
        assert signer.signed == 2

    asyncio.run(run())


def test_rule_past_the_bound_per_signature_the_rest_go_in_the_next_set() -> None:
    async def run() -> None:
        store = MemoryStore()
        signer = HeadSigner(store, KEY, lambda: 5, interval_ms=60_000)
        for index in range(MAX_HEADS_PER_SIGNATURE + 3):
            signer.advanced(f"s{index:05d}", 1, "h")
        await signer.flush()
        sets = await store.audit.all_heads()
        assert [len(read_body(s.body).heads) for s in sets] == [MAX_HEADS_PER_SIGNATURE, 3]
        verdict = await verify_store(store, KEY.address)
        # the sessions are named in signed heads but have no entries in this store: cut short
        assert verdict.signed_sets == 2 and {f.problem.name for f in verdict.findings} == {"TRUNCATED"}

    asyncio.run(run())


def test_rule_the_logged_anchor_line_is_json_with_the_sets_digest_and_signature() -> None:
    line = json.loads(anchor_line(SignedHeads("w", 3, b"{}", "0xab"), 7))
    assert line == {"worker": "w", "n": 3, "digest": SignedHeads("w", 3, b"{}", "0xab").digest,
                    "signature": "0xab", "sessions": 7}


def test_rule_one_anchor_line_a_minute_at_info_the_rest_at_debug_and_the_newest_follows(
        caplog: pytest.LogCaptureFixture) -> None:
    """Issue 39 item 8: a walk of the demo wrote 47 `audit heads signed` INFO lines. At most one
    a `log_interval_ms` reaches INFO; the sets between go to DEBUG, and the newest of them is
    written at INFO once the interval is up, so the log still anchors every set (each holds the
    digest of the one before)."""
    async def run() -> None:
        store = MemoryStore()
        signer = HeadSigner(store, KEY, lambda: int(time.monotonic() * 1000), interval_ms=1,
                            log_interval_ms=400)
        for seq in range(1, 6):
            signer.advanced("a", seq, f"h{seq}")
            while len(await store.audit.all_heads()) < seq:
                await asyncio.sleep(0.005)
        assert len(info()) == 1 and len(debug()) == 4
        while len(info()) < 2:
            await asyncio.sleep(0.02)
        newest = (await store.audit.all_heads())[-1]
        assert json.loads(info()[-1].split(" ", 3)[3])["digest"] == newest.digest
        await signer.flush()
        assert len(info()) == 2  # nothing left unlogged

    def lines(level: int) -> list[str]:
        return [r.getMessage() for r in caplog.records
                if r.levelno == level and r.getMessage().startswith("audit heads signed ")]

    def info() -> list[str]:
        return lines(logging.INFO)

    def debug() -> list[str]:
        return lines(logging.DEBUG)

    with caplog.at_level(logging.DEBUG, logger="modalcore.audit.signer"):
        asyncio.run(run())
