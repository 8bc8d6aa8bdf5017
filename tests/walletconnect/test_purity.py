"""Rule: the protocol core is sans-IO (no clock, randomness, sockets or asyncio), so a later
engine slice can run its steps inside the pure `update`."""

from __future__ import annotations

import ast
from pathlib import Path

import modalcore.walletconnect as package

PURE = ["backend/core.py", "backend/events.py", "backend/state.py", "domain/proposal.py", "domain/sign_rpc.py",
        "backend/jsonrpc.py", "backend/tags.py", "backend/uri.py", "domain/errors.py", "domain/qr.py"]
IMPURE = {"asyncio", "time", "random", "secrets", "socket", "websockets", "httpx", "os", "datetime", "logging"}


def test_the_core_modules_import_no_io_clock_or_randomness() -> None:
    root = Path(package.__file__).parent
    for name in PURE:
        tree = ast.parse((root / name).read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.level == 0}
        assert not imported & IMPURE, (name, imported & IMPURE)
