"""Issue 46, item 4: `audit verify` names the entry that was changed and the counts the store
holds, exactly, in a SQLite file and in a real redis-server. One session of four entries whose
heads the engine signed twice (up to entry 2, then up to entry 4), then tampered with."""

from __future__ import annotations

import asyncio
import json

import pytest
from eth_account.signers.local import LocalAccount

from modalcore.ledger.chain import GENESIS, StoredEntry, make_entry
from modalcore.audit.signer import HeadSigner

from .test_audit_anchor import Box, box, entries, key, verify  # noqa: F401 (fixtures)

SESSION = "s-four"
WORKER = "0123456789abcdef"


def four_entries(box: Box, key: LocalAccount) -> list[StoredEntry]:
    """Four entries; the engine signs the head at entry 2 (set 1), then at entry 4 (set 2)."""
    out: list[StoredEntry] = []
    prev = GENESIS
    for seq in range(1, 5):
        entry = make_entry(SESSION, seq, 1_700_000_000_000 + seq, "chain_switch",
                           {"chain": f"eip155:{seq}"}, prev)
        out.append(entry)
        prev = entry.hash

    async def write() -> None:
        store = box.open()
        signer = HeadSigner(store, key, lambda: 1_700_000_000_000, interval_ms=60_000, worker=WORKER)
        for entry in out:
            await store.audit.append(entry)
            if entry.seq % 2 == 0:
                signer.advanced(SESSION, entry.seq, entry.hash)
                await signer.flush()
        assert [s.n for s in await store.audit.all_heads()] == [1, 2]
        await store.close()

    asyncio.run(write())
    return out


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_rule_an_entry_written_again_with_a_fresh_hash_is_named_itself(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    """Entry 2 rewritten, hash and all: the link that breaks is entry 3's, but the entry that
    changed is 2 (before issue 46: "entry 3"); the count is every entry held, not the 1 before
    the break."""
    original = four_entries(box, key)
    value = json.loads(original[1].body)
    forged = make_entry(SESSION, 2, value["at"], value["kind"], {"chain": "eip155:666"}, value["prev"])
    box.replace_entries(SESSION, [original[0], forged, *original[2:]])
    assert verify(box, key) == 4
    assert lines(capsys) == [
        f"BROKEN session {SESSION} entry 2: it was written again: its hash is not the one entry 3 "
        "holds (or entry 3's link to it was changed)",
        f"REWRITTEN session {SESSION} entry 2: it is not the entry the engine signed "
        f"(signed set {WORKER}/1): the log was written again",
        "FAILED (BROKEN, REWRITTEN): 4 entries in 1 session checked",
    ]


def test_rule_a_deleted_log_is_measured_against_the_newest_signed_head(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    """The session's key deleted: the engine signed up to entry 4 (set 2), not 2 (set 1)."""
    four_entries(box, key)
    box.replace_entries(SESSION, [])
    assert verify(box, key) == 3
    assert lines(capsys) == [
        f"TRUNCATED session {SESSION} entry 4: the engine signed the log up to entry 4 "
        f"(signed set {WORKER}/2); it holds no entry: its whole log was deleted",
        "FAILED (TRUNCATED): 0 entries in 1 session checked",
    ]


@pytest.mark.parametrize(("kept", "said"), [
    (3, "it ends at entry 3: entry 4 was deleted"),
    (1, "it ends at entry 1: entries 2 to 4 were deleted"),
])
def test_rule_a_log_cut_short_names_what_was_deleted(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str], kept: int, said: str) -> None:
    original = four_entries(box, key)
    box.replace_entries(SESSION, original[:kept])
    assert verify(box, key) == 3
    assert lines(capsys) == [
        f"TRUNCATED session {SESSION} entry 4: the engine signed the log up to entry 4 "
        f"(signed set {WORKER}/2); {said}",
        f"FAILED (TRUNCATED): {kept} entr{'y' if kept == 1 else 'ies'} in 1 session checked",
    ]


def test_rule_every_signed_set_deleted_passes_but_says_only_anchors_can_tell(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    """Documented (docs/operators/audit.md): the store alone cannot tell deleted sets from an
    engine that never signed; the output says so and names `--anchors`."""
    four_entries(box, key)
    box.drop_heads()
    assert verify(box, key) == 0
    assert lines(capsys) == [
        "ok: 4 entries in 1 session, every link holds; 1 session unanchored (no signed head: "
        "written before heads were signed, or just before the engine stopped); 4 entries not "
        "covered by a signed head yet",
        "note: the store holds no signed head set. The engine signs each session's head within a "
        "second of its entries, so these sessions were written by an engine from before signed "
        "heads, or their sets were deleted; the store alone cannot tell which: verify --anchors "
        "FILE with the heads kept elsewhere (audit export-heads, or the engine's log lines) tells",
    ]


def test_rule_an_intact_log_counts_in_the_singular(
        box: Box, key: LocalAccount, capsys: pytest.CaptureFixture[str]) -> None:
    four_entries(box, key)
    assert verify(box, key) == 0
    assert lines(capsys) == [
        f"ok: 4 entries in 1 session, every link holds; 1 session anchored by 2 signed head sets "
        f"(signer {key.address})"]
