"""`make canary` (issue 37) reads the lock and the newest resolution and names what differs."""

from __future__ import annotations

import re
from pathlib import Path

from modalcore_dev.canary import LOCKED_EXTRAS, Upgrade, pinned_file, pins, upgrades

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


def test_the_canary_resolves_the_extras_the_lock_resolves() -> None:
    """Without an extra the lock has (postgres), the scratch venv lacks its packages and every
    canary fails whatever the upgrades."""
    script = (Path(__file__).resolve().parent.parent / "requirements" / "lock.sh").read_text()
    for line in script.splitlines():
        if " pip compile " in line and "requirements/test.txt" in line.split("-o")[-1]:
            assert set(re.findall(r"--extra (\w+)", line)) == set(LOCKED_EXTRAS)
            return
    raise AssertionError("lock.sh compiles no requirements/test.txt")
