"""Audit log figures: bytes per entry, append time, and `audit verify` over 10,000 entries."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from eth_account import Account

from modalcore.audit.chain import GENESIS, make_entry
from modalcore.audit.signer import HeadSigner
from modalcore.audit.verify import verify_store
from modalcore.store.sqlite import SqliteStore
from modalcore_dev.bench.stats import line

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


async def _fill(store: SqliteStore) -> tuple[list[int], list[float]]:
    sizes, appends = [], []
    for session in range(ENTRIES // PER_SESSION):
        prev = GENESIS
        for seq in range(1, PER_SESSION + 1):
            kind, data = _records(seq - 1)
            start = time.perf_counter_ns()
            entry = make_entry(f"session-{session:04d}", seq, 1_700_000_000_000 + seq, kind, data,
                               prev)
            await store.audit_append(entry)
            appends.append((time.perf_counter_ns() - start) / 1e3)
            sizes.append(len(entry.body) + len(entry.hash))
            prev = entry.hash
    return sizes, appends


async def _sign(store: SqliteStore) -> tuple[list[float], str]:
    """Sign every session's head, one set per `SIGNED_SETS` sessions (as one set per second
    would while that many sessions each wrote); the time of each signature."""
    key = Account.create()
    signer = HeadSigner(store, key, lambda: 1_700_000_000_000)
    signing = []
    sessions = await store.audit_sessions()
    per_set = len(sessions) // SIGNED_SETS
    for start in range(0, len(sessions), per_set):
        for session in sessions[start:start + per_set]:
            head = await store.audit_head(session)
            assert head is not None
            signer.advanced(session, head.seq, head.hash)
        began = time.perf_counter_ns()
        await signer.flush()
        signing.append((time.perf_counter_ns() - began) / 1e6)
    return signing, key.address


async def _measure(path: Path) -> list[str]:
    store = SqliteStore(path)
    sizes, appends = await _fill(store)
    verify_ms = []
    for _ in range(5):
        start = time.perf_counter_ns()
        verdict = await verify_store(store)
        verify_ms.append((time.perf_counter_ns() - start) / 1e6)
        assert verdict.broken is None and verdict.entries == ENTRIES
    signing, signer = await _sign(store)
    anchored_ms = []
    for _ in range(3):
        start = time.perf_counter_ns()
        verdict = await verify_store(store, signer)
        anchored_ms.append((time.perf_counter_ns() - start) / 1e6)
        assert not verdict.findings and verdict.anchored_sessions == ENTRIES // PER_SESSION
    await store.close()
    file_bytes = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return [
        f"Audit log ({ENTRIES:,} entries, {PER_SESSION} per session, SQLite):",
        line("bytes per entry (canonical body + hash)", f"{statistics.fmean(sizes):.0f} B"),
        line("bytes per entry on disk (file / entries)", f"{file_bytes / ENTRIES:.0f} B"),
        line("append one entry p50 (hash + insert)", f"{statistics.median(appends):.1f} µs"),
        line(f"audit verify, {ENTRIES:,} entries (median of 5)",
             f"{statistics.median(verify_ms):.1f} ms"),
        line(f"sign one set of {ENTRIES // PER_SESSION // SIGNED_SETS} heads (eth-account, p50)",
             f"{statistics.median(signing):.1f} ms"),
        line(f"audit verify, with {SIGNED_SETS} signed sets (median of 3)",
             f"{statistics.median(anchored_ms):.1f} ms"),
    ]


def run() -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_measure(Path(folder) / "audit.db"))
