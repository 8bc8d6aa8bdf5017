"""`python -m modalcore audit verify --store PATH`: check every session's chain in a SQLite
session store; exit 1 at the first broken link, naming it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

from ..store.base import SessionStore
from ..store.sqlite import SqliteStore
from .chain import Broken, verify_chain


@dataclass(frozen=True)
class Verdict:
    sessions: int
    entries: int
    broken: Broken | None


async def verify_store(store: SessionStore) -> Verdict:
    sessions = entries = 0
    for session_id in await store.audit_sessions():
        count, broken = verify_chain(await store.audit_entries(session_id))
        sessions += 1
        entries += count
        if broken is not None:
            return Verdict(sessions, entries, broken)
    return Verdict(sessions, entries, None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    verify = actions.add_parser("verify", help="check the hash chain of every session's audit log")
    verify.add_argument("--store", required=True, metavar="PATH",
                        help="the SQLite session store (the config's [store] path)")


def run(args: argparse.Namespace) -> int:
    path = Path(args.store)
    if not path.is_file():
        print(f"audit: no store at {path}", file=sys.stderr)
        return 2

    async def check() -> Verdict:
        store = SqliteStore(path)
        try:
            return await verify_store(store)
        finally:
            await store.close()

    verdict = asyncio.run(check())
    if verdict.broken is not None:
        print(f"BROKEN {verdict.broken}")
        return 1
    print(f"ok: {verdict.entries} entries in {verdict.sessions} sessions, every link holds")
    return 0
