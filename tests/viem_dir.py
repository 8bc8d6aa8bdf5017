"""Where the tests find viem (issue 32: the independent verifier and the host's `sendCalls`).

viem comes with the bundler rig's install (`@pimlico/alto` depends on it, bundler/node_modules),
or wherever MODALCORE_VIEM_DIR points (a viem package directory)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CANDIDATES = (REPO / "bundler" / "node_modules" / "viem", REPO / "renderer" / "node_modules" / "viem")


def viem_dir() -> Path | None:
    named = os.environ.get("MODALCORE_VIEM_DIR")
    for path in ((Path(named),) if named else ()) + CANDIDATES:
        if (path / "package.json").is_file() and (path / "_cjs" / "index.js").is_file():
            return path
    return None
