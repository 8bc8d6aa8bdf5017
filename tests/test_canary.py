"""`make canary` (issue 37) reads the lock and the newest resolution and names what differs."""

from __future__ import annotations

from pathlib import Path

from modalcore_dev.canary import Upgrade, pinned_file, pins, upgrades

LOCK = """uvicorn==0.54.0 \\
    --hash=sha256:aa
    # via modalcore (pyproject.toml)
Redis==8.1.0 \\
    --hash=sha256:bb
typing_extensions==4.15.0 ; python_version < "3.13" \\
    --hash=sha256:cc
"""


def test_the_canary_names_each_package_whose_newest_release_differs_from_the_lock(tmp_path: Path) -> None:
    locked = pins(LOCK)
    assert locked == {"uvicorn": "0.54.0", "redis": "8.1.0", "typing-extensions": "4.15.0"}
    newest = {"uvicorn": "0.55.0", "redis": "8.1.0", "typing-extensions": "4.15.0", "idna": "3.21"}
    assert upgrades(locked, newest) == [Upgrade("idna", "(not locked)", "3.21"),
                                        Upgrade("uvicorn", "0.54.0", "0.55.0")]
    mixed = pinned_file({**locked, "uvicorn": "0.55.0"}, tmp_path).read_text()
    assert mixed.splitlines() == ["redis==8.1.0", "typing-extensions==4.15.0", "uvicorn==0.55.0"]


def test_the_real_lock_reads_as_pins() -> None:
    lock = Path(__file__).resolve().parent.parent / "requirements" / "test.txt"
    locked = pins(lock.read_text())
    assert {"uvicorn", "starlette", "pytest", "mypy", "redis"} <= set(locked)
