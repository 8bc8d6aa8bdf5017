"""`python -m modalcore audit verify|export-heads|show`: check every session's chain in a session
store (SQLite or Redis) against the heads the engine signed, print those signed heads for
keeping elsewhere, or draw one approval again from the log and check it (`show`, show.py: exit 6
when the log holds no such approval, 7 when its tree, hash, signature or executed call does not
hold, or the chain's code).

`verify` exits 0 when everything holds (sessions without a signed head are reported as
unanchored, not failed), else with the highest `Problem` found: 1 a broken link, 3 a log cut
short, 4 a log written again, 5 signed heads (or anchors) that do not hold; 2 for a usage error
(no store, no engine address to check signatures against).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from eth_account import Account

from ..core.plural import counted
from ..server.app import open_store
from ..server.stores import siwx_key_file
from ..server.config import ConfigError, default_config, load_config
from ..store.base import SessionStore
from ..store.optional import REDIS_MISSING, RedisError, RedisStore
from ..store.sqlite import SqliteStore
from .audit_show import show
from ..audit.verify import Anchor, UnreadableAnchor, Verdict, read_anchor, verify_store

__all__ = ["Verdict", "add_arguments", "run", "verify_store"]

MAX_FINDINGS_PRINTED = 100
MAX_ANCHORS = 10_000_000  # lines read from an anchors file


class UsageError(Exception):
    """What the command cannot start with (exit 2)."""


def _store_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--store", metavar="PATH", help="a SQLite session store (the config's [store] path)")
    where.add_argument("--redis", metavar="URL", help="a Redis session store (the config's [store] url)")
    where.add_argument("--config", metavar="FILE", help="the engine's config: its store and its key file")
    parser.add_argument("--prefix", default="modalcore:", help="with --redis: the keys' prefix")


def _engine_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine-address", metavar="0x…",
                        help="the address signed heads must be signed by (GET /v1/engine); "
                             "default: that of the config's [siwx] key_file")
    parser.add_argument("--anchors", metavar="FILE",
                        help="signed heads kept elsewhere: lines of `audit export-heads`, or the "
                             "engine log's `audit heads signed {...}` lines")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    verify = actions.add_parser(
        "verify", help="check every session's audit chain against the heads the engine signed")
    _store_arguments(verify)
    _engine_arguments(verify)
    export = actions.add_parser("export-heads", help="print every signed head set, one JSON line each")
    _store_arguments(export)
    shown = actions.add_parser("show", help="draw an approval again from the log and check its signature, "
                                            "hash, executed call and anchoring")
    shown.add_argument("session")
    shown.add_argument("request", help="the request's id (the approval frame's `request`)")
    _store_arguments(shown)
    _engine_arguments(shown)


def _config(args: argparse.Namespace) -> tuple[SessionStore, Path]:
    """The store to read, and where the engine's key would be."""
    if args.store is not None:
        path = Path(args.store)
        if not path.is_file():
            raise UsageError(f"no store at {path}")
        return SqliteStore(path), siwx_key_file(default_config())
    if args.redis is not None:
        if RedisStore is None:
            raise UsageError(REDIS_MISSING)
        return RedisStore.from_url(args.redis, prefix=args.prefix), siwx_key_file(default_config())
    try:
        config = load_config(args.config)
    except ConfigError as error:
        raise UsageError(f"config: {error}") from None
    if config.store.kind == "memory":
        raise UsageError("the config's store is `memory`: nothing outlives the engine to verify")
    if config.store.kind == "sqlite" and not config.path(config.store.path).is_file():
        raise UsageError(f"no store at {config.path(config.store.path)}")
    return open_store(config), siwx_key_file(config)


def _engine_address(args: argparse.Namespace, key_file: Path) -> str | None:
    if args.engine_address:
        return str(args.engine_address)
    try:
        text = key_file.read_text().strip()
    except OSError:
        return None
    try:
        return str(Account.from_key(text).address)
    except ValueError:
        raise UsageError(f"{key_file} does not hold the engine's key") from None


def _anchors(path: str | None) -> list[Anchor]:
    if path is None:
        return []
    anchors = []
    try:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if number > MAX_ANCHORS:
                    raise UsageError(f"{path}: more than {MAX_ANCHORS} lines")
                if line.strip():
                    anchors.append(read_anchor(line))
    except OSError as error:
        raise UsageError(f"cannot read {path}: {type(error).__name__}") from None
    except UnreadableAnchor as error:
        raise UsageError(f"{path} line {number}: {error}") from None
    return anchors


def _summary(verdict: Verdict, engine: str | None) -> str:
    parts = [f"{counted(verdict.entries, 'entry', 'entries')} in "
             f"{counted(verdict.sessions, 'session')}, every link holds"]
    if verdict.signed_sets:
        parts.append(f"{counted(verdict.anchored_sessions, 'session')} anchored by "
                     f"{counted(verdict.signed_sets, 'signed head set')} (signer {engine})")
    if verdict.unanchored_sessions:
        parts.append(f"{counted(verdict.unanchored_sessions, 'session')} unanchored (no signed head: "
                     "written before heads were signed, or just before the engine stopped)")
    if verdict.unsigned_entries:
        parts.append(f"{counted(verdict.unsigned_entries, 'entry', 'entries')} not covered by a "
                     "signed head yet")
    if verdict.anchors:
        parts.append(f"{counted(verdict.anchors, 'anchor')} held")
    return "; ".join(parts)


def _unanchored_note(verdict: Verdict) -> str | None:
    """What the store alone cannot tell (docs/operators/audit.md): a store with entries and no
    signed set at all is an engine from before signed heads, or one whose sets were deleted."""
    if verdict.signed_sets or not verdict.unanchored_sessions or verdict.anchors:
        return None
    return ("note: the store holds no signed head set. The engine signs each session's head "
            "within a second of its entries, so these sessions were written by an engine from "
            "before signed heads, or their sets were deleted; the store alone cannot tell which: "
            "verify --anchors FILE with the heads kept elsewhere (audit export-heads, or the "
            "engine's log lines) tells")


async def _signer(args: argparse.Namespace, store: SessionStore, key_file: Path) -> tuple[str | None, list[Anchor]]:
    """The engine whose signed heads are checked, and the anchors kept elsewhere."""
    engine = _engine_address(args, key_file)
    anchors = _anchors(args.anchors)
    if engine is None and (anchors or await store.audit.all_heads()):
        raise UsageError("the store holds signed heads: name the engine that signed them "
                         "(--engine-address, as GET /v1/engine gives it, or --config)")
    return engine, anchors


async def _verify(args: argparse.Namespace) -> tuple[Verdict, str | None]:
    store, key_file = _config(args)
    try:
        engine, anchors = await _signer(args, store, key_file)
        return await verify_store(store, engine, anchors), engine
    finally:
        await store.close()


async def _export(args: argparse.Namespace) -> int:
    store, _ = _config(args)
    try:
        for signed in await store.audit.all_heads():
            print(json.dumps({"worker": signed.worker, "n": signed.n, "digest": signed.digest,
                              "signature": signed.signature, "body": signed.body.decode()},
                             separators=(",", ":"), ensure_ascii=False))
    finally:
        await store.close()
    return 0


async def _show(args: argparse.Namespace) -> int:
    store, key_file = _config(args)
    try:
        engine, anchors = await _signer(args, store, key_file)
        report = await show(store, args.session, args.request, engine, anchors)
    finally:
        await store.close()
    print("\n".join(report.lines))
    print("ok: what was approved is what is recorded" if report.code == 0 else f"FAILED (exit {report.code})")
    return report.code


def run(args: argparse.Namespace) -> int:
    try:
        if args.action == "export-heads":
            return asyncio.run(_export(args))
        if args.action == "show":
            return asyncio.run(_show(args))
        verdict, engine = asyncio.run(_verify(args))
    except UsageError as error:
        print(f"audit: {error}", file=sys.stderr)
        return 2
    except (RedisError, OSError) as error:
        print(f"audit: cannot read the store: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    for finding in verdict.findings[:MAX_FINDINGS_PRINTED]:
        print(f"{finding.problem.name} {finding}")
    if len(verdict.findings) > MAX_FINDINGS_PRINTED:
        print(f"… and {len(verdict.findings) - MAX_FINDINGS_PRINTED} more")
    if verdict.findings:
        kinds = sorted({f.problem.name for f in verdict.findings})
        print(f"FAILED ({', '.join(kinds)}): {counted(verdict.entries, 'entry', 'entries')} in "
              f"{counted(verdict.sessions, 'session')} checked")
        return verdict.exit_code
    print(f"ok: {_summary(verdict, engine)}")
    note = _unanchored_note(verdict)
    if note is not None:
        print(note)
    return 0
