"""modalcore.aa.userop and modalcore.aa.policy stay importable by update code: no I/O or ABI
library is loaded with them (the same probe as tests/test_pure_core_bounds.py)."""

from __future__ import annotations

import json
import subprocess
import sys

IO_LIBRARIES = ("httpx", "eth_abi", "eth_account", "solders", "redis", "websockets")
PROBE = ("import json, sys, importlib; importlib.import_module(sys.argv[1]); "
         "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in sys.argv[2:])))")


def _loaded(module: str, *libraries: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, module, *libraries], capture_output=True, text=True,
                          timeout=120, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def test_the_pure_modules_load_no_io_library() -> None:
    for module in ("modalcore.aa.userop", "modalcore.aa.policy"):
        assert _loaded(module, *IO_LIBRARIES) == []


def test_the_probe_sees_what_the_client_loads() -> None:
    assert "httpx" in _loaded("modalcore.aa.bundler", "httpx")
