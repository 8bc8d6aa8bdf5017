"""Issue 17: the SQLite store writes saves and analytics events behind, committed together.

Rules checked:
- a save is read back at once from the store that holds it (the newest one wins), and another
  connection to the file sees it only once committed: by `flush()`, by the delay, by enough
  rows waiting, or by `close()`;
- a browser request (an `effect` frame) leaves only after the state awaiting it is committed
  to the file (write-ahead, kept with write-behind saves);
- `write_behind_ms=0` commits each save as it is made.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

from modalcore.engine.named import purpose
from modalcore.core.msg import Msg
from modalcore.engine.persist import load_bytes
from modalcore.store.base import StoredEvent
from modalcore.store.sqlite import SqliteStore
from modalcore_testing import RunnerRig


def _on_disk(path: Path, session_id: str) -> bytes | None:
    """What another connection (another process after a kill -9) reads from the file."""
    db = sqlite3.connect(str(path))
    try:
        row = db.execute("SELECT data FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return bytes(row[0]) if row else None
    finally:
        db.close()


def _events_on_disk(path: Path) -> int:
    db = sqlite3.connect(str(path))
    try:
        return int(db.execute("SELECT COUNT(*) FROM analytics_events").fetchone()[0])
    finally:
        db.close()


async def test_rule_a_held_save_is_read_back_and_committed_by_flush(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, write_behind_ms=60_000)
    await store.save("a", b"one", 10)
    await store.save("a", b"two", 11)  # saved twice while held: written once, as last saved
    assert await store.load("a", 12) == b"two"
    assert _on_disk(path, "a") is None  # held, not committed yet
    commits = store.writer.commits
    await store.flush()
    assert _on_disk(path, "a") == b"two"
    assert store.writer.commits == commits + 1
    await store.flush()  # nothing held: no empty transaction
    assert store.writer.commits == commits + 1
    await store.close()


async def test_rule_held_saves_are_committed_after_the_delay(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, write_behind_ms=5)
    await store.save("a", b"one", 10)
    await store.analytics.add(StoredEvent("e1", "p", "a", "MODAL_OPEN", 10, b"{}"))
    assert _on_disk(path, "a") is None
    for _ in range(500):  # the event loop runs the commit once the delay has passed
        await asyncio.sleep(0.01)
        if _on_disk(path, "a") is not None:
            break
    assert _on_disk(path, "a") == b"one"
    assert _events_on_disk(path) == 1
    await store.close()


async def test_rule_enough_held_rows_are_committed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, write_behind_ms=60_000, write_behind_rows=3)
    await store.save("a", b"1", 10)
    await store.save("b", b"2", 10)
    assert _on_disk(path, "a") is None
    await store.save("c", b"3", 10)  # the third row waiting: committed in the same call
    assert [_on_disk(path, sid) for sid in "abc"] == [b"1", b"2", b"3"]
    await store.close()


async def test_rule_close_commits_and_a_reopened_file_has_everything(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, write_behind_ms=60_000)
    await store.save("a", b"state", 10)
    await store.analytics.add(StoredEvent("e1", "p", "a", "MODAL_OPEN", 10, b"{}"))
    await store.close()
    again = SqliteStore(path)
    assert await again.load("a", 11) == b"state"
    assert [row[3] for row in await again.analytics.counts()] == [1]
    await again.close()


async def test_rule_delete_and_expiry_apply_to_held_saves(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, ttl_ms=1000, write_behind_ms=60_000)
    await store.save("a", b"one", 0)
    await store.delete("a")
    assert await store.load("a", 1) is None
    await store.flush()
    assert _on_disk(path, "a") is None  # the delete is not undone by the held save
    await store.save("b", b"two", 0)
    assert await store.load("b", 2000) is None  # expired while held
    await store.save("c", b"three", 0)
    assert await store.expire(5000) == 1 and await store.count() == 0
    await store.close()


async def test_rule_no_write_behind_commits_each_save(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, write_behind_ms=0)
    await store.save("a", b"one", 10)
    assert _on_disk(path, "a") == b"one"
    await store.close()


async def test_rule_an_effect_leaves_only_after_its_state_is_committed(
    rig: RunnerRig, ask_effect: Callable[[str, int], Msg], tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path, write_behind_ms=60_000)  # nothing would be committed by the delay
    rig.runner.deps.store = store
    rig.session.acted = True  # a used session (only those are saved)
    rig.outlet.take()
    seen_on_disk: list[bytes | None] = []
    send = rig.outlet.send_bytes

    async def sending(data: bytes) -> None:  # what the file holds as each frame leaves
        seen_on_disk.append(_on_disk(path, rig.session.id))
        await send(data)

    rig.outlet.send_bytes = sending  # type: ignore[method-assign]
    rig.runner.deliver(ask_effect("e1", 5000))
    await rig.runner.settled()
    assert [f["t"] for f in rig.outlet.take()][:1] == ["effect"]
    committed = seen_on_disk[0]
    assert committed is not None
    session, timers = load_bytes(committed)
    assert {eid: purpose(to) for eid, to in session.effects.items()} == {"e1": "AddressCopyAnswered|copy"}
    assert [t.key for t in timers] == ["effect:e1"]
    await store.close()


async def test_rule_a_new_file_gets_pages_a_saved_session_fits_in(tmp_path: Path) -> None:
    """16 KiB pages for a new file (a ~12 KiB session row needs no overflow chain); a file that
    exists keeps the page size it was made with."""
    store = SqliteStore(tmp_path / "new.db")
    await store.close()
    old = sqlite3.connect(str(tmp_path / "old.db"))
    old.execute("CREATE TABLE t (x)")
    old.close()
    kept = SqliteStore(tmp_path / "old.db")
    await kept.save("a", b"x", 1)
    await kept.close()
    sizes = []
    for name in ("new.db", "old.db"):
        db = sqlite3.connect(str(tmp_path / name))
        sizes.append(int(db.execute("PRAGMA page_size").fetchone()[0]))
        db.close()
    assert sizes == [16384, 4096]


async def test_rule_events_are_kept_without_a_task_only_by_a_store_that_holds_them(tmp_path: Path) -> None:
    """`analytics.add_nowait`: a write-behind store keeps the event at once (counted on the next
    commit); one that commits each write says no, and `analytics.add` still writes it."""
    behind = SqliteStore(tmp_path / "a.db", write_behind_ms=60_000)
    assert behind.analytics.add_nowait(StoredEvent("e1", "p", "s", "MODAL_OPEN", 10, b"{}")) is True
    assert _events_on_disk(tmp_path / "a.db") == 0
    assert [row[3] for row in await behind.analytics.counts()] == [1]
    await behind.close()
    direct = SqliteStore(tmp_path / "b.db", write_behind_ms=0)
    event = StoredEvent("e2", "p", "s", "MODAL_OPEN", 10, b"{}")
    assert direct.analytics.add_nowait(event) is False
    assert _events_on_disk(tmp_path / "b.db") == 0
    await direct.analytics.add(event)
    assert _events_on_disk(tmp_path / "b.db") == 1
    await direct.close()
