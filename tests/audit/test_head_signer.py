"""The head signer keeps writes cheap (issue 31): a signature costs milliseconds, so it is made
at most once per interval per process, over every head that moved, never per entry."""

from __future__ import annotations

import asyncio
import json

from eth_account import Account

from modalcore.audit.chain import GENESIS, SignedHeads
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
        assert await store.heads_all() == []  # nothing signed per entry
        await signer.flush()
        sets = await store.heads_all()
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
        while not await store.heads_all():
            await asyncio.sleep(0.01)
        signer.advanced("a", 2, "h2")
        while len(await store.heads_all()) < 2:
            await asyncio.sleep(0.01)
        first, second = await store.heads_all()
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
        sets = await store.heads_all()
        assert [len(read_body(s.body).heads) for s in sets] == [MAX_HEADS_PER_SIGNATURE, 3]
        verdict = await verify_store(store, KEY.address)
        # the sessions are named in signed heads but have no entries in this store: cut short
        assert verdict.signed_sets == 2 and {f.problem.name for f in verdict.findings} == {"TRUNCATED"}

    asyncio.run(run())


def test_rule_the_logged_anchor_line_is_json_with_the_sets_digest_and_signature() -> None:
    line = json.loads(anchor_line(SignedHeads("w", 3, b"{}", "0xab"), 7))
    assert line == {"worker": "w", "n": 3, "digest": SignedHeads("w", 3, b"{}", "0xab").digest,
                    "signature": "0xab", "sessions": 7}
