"""Key files made once: processes starting together all get the one complete key."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

from modalcore.keyfiles import create_once
from modalcore.server.config import EngineConfig, resolve_secret
from modalcore.siwx.tokens import load_or_create_key


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
