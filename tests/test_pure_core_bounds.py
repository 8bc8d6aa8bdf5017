"""The seam between the pure core and the runtime (issue 30): the update function loads no I/O
or chain library (module and class sizes: tests/test_size_rules.py)."""

from __future__ import annotations

import json
import subprocess
import sys

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
