"""The seam between the pure core and the runtime (issue 30): the update function loads no I/O
or chain library, and no module grows past what one reader can hold."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import modalcore

PACKAGE = pathlib.Path(modalcore.__file__).parent
MAX_LINES = 450
IO_LIBRARIES = ("httpx", "eth_abi", "eth_account", "solders", "redis", "websockets")
_PROBE = ("import json, sys, modalcore.engine.update; "
          "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in sys.argv[1:])))")


def _loaded_by_update(*libraries: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *libraries], capture_output=True, text=True,
                          timeout=120, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def test_the_update_function_loads_no_io_or_chain_library() -> None:
    assert _loaded_by_update(*IO_LIBRARIES) == []


def test_the_probe_sees_a_library_the_update_function_loads() -> None:
    assert "pydantic" in _loaded_by_update("pydantic")


def _too_long(root: pathlib.Path) -> dict[str, int]:
    return {str(path.relative_to(root.parent)): lines for path in sorted(root.rglob("*.py"))
            if (lines := len(path.read_text().splitlines())) > MAX_LINES}


def test_no_module_of_modalcore_exceeds_450_lines() -> None:
    assert _too_long(PACKAGE) == {}


def test_the_line_check_sees_a_long_module(tmp_path: pathlib.Path) -> None:
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES)
    assert _too_long(tmp_path) == {f"{tmp_path.name}/long.py": MAX_LINES + 1}
