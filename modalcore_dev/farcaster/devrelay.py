"""The demo's local Farcaster relay with its demo client page, in a child process on a free
port (`python -m modalcore_dev.farcaster --demo-client`), and the engine's [embedded.farcaster]
section naming it and the dev chain's ID registry (issue 33)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping
from typing import Any

import httpx

from modalcore.netports import free_port


class FarcasterRelayStartError(RuntimeError):
    pass


def start_farcaster_relay(timeout_s: float = 20.0) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "modalcore_dev.farcaster", "--port", str(port), "--demo-client"])
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            if httpx.get(f"{url}/client/channels", timeout=1.0).status_code == 200:
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.terminate()
    raise FarcasterRelayStartError("the local Farcaster relay did not start")


def farcaster_section(relay_url: str, chain: Mapping[str, Any], page_url: str) -> dict[str, object] | None:
    """[embedded.farcaster] for a dev chain's deployment entry (None: it has no ID registry).
    The dev chain stands in for OP Mainnet; the messages still say chain id 10."""
    registry = (chain.get("farcaster") or {}).get("idRegistry")
    if not registry:
        return None
    return {"relay_url": relay_url, "rpc_url": str(chain["rpc"]), "id_registry": str(registry),
            "domain": page_url.split("://", 1)[1].rstrip("/"), "siwe_uri": page_url.rstrip("/") + "/"}
