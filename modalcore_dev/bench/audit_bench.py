"""Audit log figures: bytes per entry, append time, and `audit verify` over 10,000 entries."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from eth_account import Account

from modalcore.ledger.chain import GENESIS, make_entry
from modalcore.audit.signer import HeadSigner
from modalcore.audit.verify import verify_store
from modalcore.store.sqlite import SqliteStore
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line

ENTRIES = 10_000
PER_SESSION = 100
SIGNED_SETS = 10  # the 100 sessions' heads in 10 sets of 10
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def _records(index: int) -> tuple[str, dict[str, Any]]:
    """A realistic mix: connect, requests and outcomes with hashes, switches, disconnects."""
    who = {"connector": "io.metamask", "address": ADDRESS, "chain": "eip155:1"}
    eid = f"e{index}"
    kinds: list[tuple[str, dict[str, Any]]] = [
        ("connect", {**who, "origin": "https://app.example.com"}),
        ("signature_request", {"eid": eid, "method": "personal_sign", "connector": "uuid-1",
                               "request_hash": "a" * 64}),
        ("signature_result", {"eid": eid, "method": "personal_sign", "outcome": "approved",
                              "result_hash": "b" * 64}),
        ("sign_in", {"address": f"eip155:1:{ADDRESS}"}),
        ("transaction_request", {"eid": eid, "method": "eth_sendTransaction",
                                 "connector": "uuid-1", "request_hash": "c" * 64}),
        ("transaction_result", {"eid": eid, "method": "eth_sendTransaction",
                                "outcome": "approved", "tx_hash": "0x" + "d" * 64}),
        ("chain_switch", {**who, "chain": "eip155:8453", "from": "eip155:1"}),
        ("disconnect", who),
    ]
    return kinds[index % len(kinds)]


async def _fill(store: SqliteStore, entries: int) -> tuple[list[int], list[float]]:
    sizes, appends = [], []
    for session in range(entries // PER_SESSION):
        prev = GENESIS
        for seq in range(1, PER_SESSION + 1):
            kind, data = _records(seq - 1)
            start = time.perf_counter_ns()
            entry = make_entry(f"session-{session:04d}", seq, 1_700_000_000_000 + seq, kind, data,
                               prev)
            await store.audit.append(entry)
            appends.append((time.perf_counter_ns() - start) / 1e3)
            sizes.append(len(entry.body) + len(entry.hash))
            prev = entry.hash
    return sizes, appends


async def _sign(store: SqliteStore, sets: int) -> tuple[list[float], str]:
    """Sign every session's head, one set per `SIGNED_SETS` sessions (as one set per second
    would while that many sessions each wrote); the time of each signature."""
    key = Account.create()
    signer = HeadSigner(store, key, lambda: 1_700_000_000_000)
    signing = []
    sessions = await store.audit.sessions()
    per_set = len(sessions) // sets
    for start in range(0, len(sessions), per_set):
        for session in sessions[start:start + per_set]:
            head = await store.audit.head(session)
            assert head is not None
            signer.advanced(session, head.seq, head.hash)
        began = time.perf_counter_ns()
        await signer.flush()
        signing.append((time.perf_counter_ns() - began) / 1e6)
    return signing, key.address


async def _measure(path: Path, entries: int, sets: int, repeats: int, anchored_repeats: int) -> Lines:
    store = SqliteStore(path)
    sizes, appends = await _fill(store, entries)
    verify_ms = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        verdict = await verify_store(store)
        verify_ms.append((time.perf_counter_ns() - start) / 1e6)
        assert verdict.broken is None and verdict.entries == entries
    signing, signer = await _sign(store, sets)
    anchored_ms = []
    for _ in range(anchored_repeats):
        start = time.perf_counter_ns()
        verdict = await verify_store(store, signer)
        anchored_ms.append((time.perf_counter_ns() - start) / 1e6)
        assert not verdict.findings and verdict.anchored_sessions == entries // PER_SESSION
    await store.close()
    file_bytes = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    per_entry, on_disk, append = statistics.fmean(sizes), file_bytes / entries, statistics.median(appends)
    verify, sign, anchored = statistics.median(verify_ms), statistics.median(signing), statistics.median(anchored_ms)
    return [
        f"Audit log ({entries:,} entries, {PER_SESSION} per session, SQLite):",
        line("bytes per entry (canonical body + hash)", f"{per_entry:.0f} B", measured=[per_entry]),
        line("bytes per entry on disk (file / entries)", f"{on_disk:.0f} B", measured=[on_disk]),
        line("append one entry p50 (hash + insert)", f"{append:.1f} µs", measured=[append]),
        line(f"audit verify, {entries:,} entries (median of {repeats})", f"{verify:.1f} ms", measured=[verify]),
        line(f"sign one set of {entries // PER_SESSION // sets} heads (eth-account, p50)", f"{sign:.1f} ms",
             measured=[sign]),
        line(f"audit verify, with {sets} signed sets (median of {anchored_repeats})", f"{anchored:.1f} ms",
             measured=[anchored]),
    ]


def run(parts: Parts) -> Lines:
    """Smoke: two sessions' entries, each head signed in its own set."""
    entries, sets, repeats, anchored = (2 * PER_SESSION, 2, 1, 1) if parts.smoke else (ENTRIES, SIGNED_SETS, 5, 3)
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_measure(Path(folder) / "audit.db", entries, sets, repeats, anchored))
