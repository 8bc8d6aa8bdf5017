"""`python -m modalcore analytics prune`: forget the locally kept events older than the
retention (`[analytics] retention_days`, default 90), for a periodic job (cron, a systemd
timer). The engine also prunes once a day by itself while it keeps events."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from ..core.plural import counted
from ..server.app import open_store
from ..server.config import AnalyticsConfig, ConfigError, default_config, load_config
from ..store.base import SessionStore, utc_day
from ..store.sqlite import SqliteStore


async def prune(store: SessionStore, retention_days: int, now_ms: int) -> tuple[int, str]:
    """Forget the days before `retention_days` ago; (events forgotten, first day kept)."""
    before = now_ms - retention_days * 86_400_000
    return await store.analytics.prune(before), utc_day(before)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    run_prune = actions.add_parser("prune", help="forget locally kept events older than the retention")
    where = run_prune.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", metavar="FILE", help="the engine's config: its store and retention_days")
    where.add_argument("--store", metavar="PATH", help="a SQLite session store")
    run_prune.add_argument("--days", type=int, help="keep this many days (default: the config's, else 90)")


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config) if args.config else default_config()
    except ConfigError as error:
        print(f"config: {error}", file=sys.stderr)
        return 2
    days = args.days if args.days is not None else config.analytics.retention_days
    try:
        AnalyticsConfig(retention_days=days)
    except ValueError:
        print(f"analytics: --days must be between 1 and 36500, not {days}", file=sys.stderr)
        return 2
    if args.store is not None and not Path(args.store).is_file():
        print(f"analytics: no store at {args.store}", file=sys.stderr)
        return 2

    async def go() -> tuple[int, str]:
        store = SqliteStore(Path(args.store)) if args.store is not None else open_store(config)
        try:
            return await prune(store, days, int(time.time() * 1000))
        finally:
            await store.close()

    forgotten, first = asyncio.run(go())
    print(f"ok: {counted(forgotten, 'event')} before {first} forgotten (retention {counted(days, 'day')})")
    return 0
