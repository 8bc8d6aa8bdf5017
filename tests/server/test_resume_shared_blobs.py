"""Issue 17: saved sessions refer to the wallet directory's pages by hash (the store keeps each
once). Rules: a session restored after a restart (SQLite) or on another worker (Redis) redraws
All Wallets identically in its first snapshot, without waiting on the directory; a page gone
from the store is fetched again and drawn the same; a row saved before references existed
(format 2) still resumes."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path
from typing import Any

import msgpack

from modalcore.engine.persist import blob_refs, load_bytes, session_to_bytes
from modalcore_testing import Client, make_test_config, start_server

_prefixes = itertools.count()


async def _open_all_wallets(client: Client) -> None:
    await client.join()
    await client.intent("host", "open")
    await client.recv_until(lambda f: f["t"] == "host_event")
    await client.intent("connect/all-wallets", "press")
    await client.quiet(0.5)  # the page of wallets arrives in a later patch


def _items(tree: dict[str, Any]) -> int:
    return int(tree.get("t") == "wallet-item") + sum(_items(c) for c in tree.get("c", ()))


def _rows(path: Path, sql: str, *args: Any) -> list[Any]:
    db = sqlite3.connect(str(path))
    try:
        rows = db.execute(sql, args).fetchall()
        db.commit()
        return rows
    finally:
        db.close()


async def _restart(tmp_path: Path, between: Any = None) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """All Wallets opened, the engine restarted (after `between(db path, session id)`), the
    visitor back: (the tree before, the frames of the rejoin, the server's session after)."""
    path = tmp_path / "sessions.db"
    config = make_test_config(store={"kind": "sqlite", "path": str(path)})
    with start_server(config) as server:
        async with server.client() as client:
            await _open_all_wallets(client)
            tree = server.hub.runners[client.session].session.tree.to_wire()
    assert _items(tree) >= 10 and tree["p"]["view"] == "AllWallets"
    if between is not None:
        between(path, client.session)
    with start_server(config) as server:
        async with Client.open(server.ws_url(), seq=client.seq) as again:
            frames = await again.join(resume=client.resume, last=0)
            frames += await again.quiet(0.5)
            after = server.hub.runners[client.session].session.tree.to_wire()
    assert frames[0]["session"] == client.session and frames[0]["resumed"] is True
    return tree, frames, after


async def test_rule_after_a_restart_all_wallets_is_redrawn_from_the_stored_pages(tmp_path: Path) -> None:
    def stored(path: Path, session_id: str) -> None:
        (data,), = _rows(path, "SELECT data FROM sessions WHERE id = ?", session_id)
        refs = blob_refs(bytes(data))
        assert refs and len(refs) == len(_rows(path, "SELECT hash FROM blobs"))
        assert len(bytes(data)) < 6000  # the page is not in the session's row

    tree, frames, _ = await _restart(tmp_path, stored)
    snapshot = next(f for f in frames if f["t"] == "snapshot")
    assert snapshot["tree"] == tree  # drawn at once, the directory not asked
    assert [f["t"] for f in frames if f["t"] == "patch"] == []


async def test_rule_a_page_gone_from_the_store_is_fetched_again(tmp_path: Path) -> None:
    def forget(path: Path, session_id: str) -> None:
        _rows(path, "DELETE FROM blobs")

    tree, frames, after = await _restart(tmp_path, forget)
    snapshot = next(f for f in frames if f["t"] == "snapshot")
    assert _items(snapshot["tree"]) < _items(tree)  # not there at first
    assert after == tree  # then fetched and drawn the same


async def test_rule_a_row_saved_before_references_existed_still_resumes(tmp_path: Path) -> None:
    def as_format_2(path: Path, session_id: str) -> None:
        (data,), = _rows(path, "SELECT data FROM sessions WHERE id = ?", session_id)
        blobs = {str(h): bytes(b) for h, b in _rows(path, "SELECT hash, data FROM blobs")}
        session, timers = load_bytes(bytes(data), blobs)
        old = session_to_bytes(session, timers)
        assert msgpack.unpackb(old)["format"] == 2
        _rows(path, "UPDATE sessions SET data = ? WHERE id = ?", old, session_id)
        _rows(path, "DELETE FROM blobs")

    tree, frames, _ = await _restart(tmp_path, as_format_2)
    assert next(f for f in frames if f["t"] == "snapshot")["tree"] == tree


async def test_rule_another_worker_on_redis_redraws_all_wallets_from_the_stored_pages(
        redis_url: str) -> None:
    config = make_test_config(store={"kind": "redis", "url": redis_url,
                                     "prefix": f"blobs{next(_prefixes)}:"})
    with start_server(config) as a, start_server(config) as b:
        async with a.client() as first:
            await _open_all_wallets(first)
            tree = a.hub.runners[first.session].session.tree.to_wire()
        assert _items(tree) >= 10
        async with Client.open(b.ws_url(), seq=first.seq) as second:
            frames = await second.join(resume=first.resume, last=0)
        assert frames[0]["session"] == first.session and frames[0]["resumed"] is True
        assert next(f for f in frames if f["t"] == "snapshot")["tree"] == tree
