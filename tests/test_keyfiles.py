"""Key files made once: processes starting together all get the one complete key."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

from modalcore.keyfiles import create_once
from modalcore.server.config import EngineConfig, resolve_secret
from modalcore.siwx.backend.tokens import load_or_create_key


def _race(path: str, content: str, start: multiprocessing.synchronize.Barrier, out: multiprocessing.Queue[str]) -> None:
    start.wait()
    out.put(create_once(Path(path), content))


def test_processes_starting_together_all_read_the_one_complete_file(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "engine.key"
    context = multiprocessing.get_context("fork")
    start = context.Barrier(8)
    out: multiprocessing.Queue[str] = context.Queue()
    workers = [context.Process(target=_race, args=(str(path), f"{index:064x}", start, out)) for index in range(8)]
    for worker in workers:
        worker.start()
    seen = {out.get(timeout=60) for _ in workers}
    for worker in workers:
        worker.join(60)
    assert seen == {path.read_text().strip()} and len(path.read_text().strip()) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(item.name for item in path.parent.iterdir()) == ["engine.key"]  # no temporary left


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    path.write_text("mine\n")
    assert create_once(path, "theirs") == "mine"
    assert path.read_text() == "mine\n"


def test_the_engine_secret_and_signing_key_are_made_once_and_kept(tmp_path: Path) -> None:
    config = EngineConfig(secret_file=str(tmp_path / "secret"))
    assert resolve_secret(config) == resolve_secret(config)
    key = tmp_path / "engine.key"
    assert load_or_create_key(key).address == load_or_create_key(key).address


async def test_every_store_file_the_engine_creates_is_owner_only(tmp_path: Path) -> None:
    """Issue 27 item 5: sessions.db, embedded.db (codes, budgets, sealed keys), siwx.db,
    names.db, their -wal/-shm files and the key files are 0600 under a 0022 umask."""
    import os

    from modalcore.embedded.budget import BudgetStore
    from modalcore.embedded.codestore import CodeStore
    from modalcore.embedded.keys import KeyVault
    from modalcore.embedded.masterkey import MasterKey
    from modalcore.services.backend.name_registry import NameRegistry
    from modalcore.siwx.backend.store import SqliteSiwxStore
    from modalcore.store.sqlite import SqliteStore

    old = os.umask(0o022)
    try:
        sessions = SqliteStore(tmp_path / "data" / "sessions.db", write_behind_ms=0)
        await sessions.save("s1", b"state", 1)
        embedded = tmp_path / "data" / "embedded.db"
        codes, budget, vault = CodeStore(embedded), BudgetStore(embedded), KeyVault(embedded, MasterKey(bytes(32)))
        siwx = SqliteSiwxStore(tmp_path / "data" / "siwx.db")
        names = NameRegistry(tmp_path / "data" / "names.db")
        resolve_secret(EngineConfig(base_dir=str(tmp_path)))  # .modalcore/secret
        load_or_create_key(tmp_path / "data" / "engine.key")
        files = sorted([*(tmp_path / "data").iterdir(), *(tmp_path / ".modalcore").iterdir()])
        assert {p.name for p in files} >= {"sessions.db", "sessions.db-wal", "embedded.db", "embedded.db-wal",
                                           "siwx.db", "names.db", "engine.key", "secret"}
        assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {p.name: "0o600" for p in files}
        await sessions.close()
        for store in (codes, budget, siwx, names):
            store.close()
        assert vault is not None
    finally:
        os.umask(old)


def test_an_existing_group_readable_store_file_is_made_owner_only(tmp_path: Path) -> None:
    from modalcore.embedded.codestore import CodeStore

    path = tmp_path / "embedded.db"
    path.touch(mode=0o644)
    path.chmod(0o644)
    CodeStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
