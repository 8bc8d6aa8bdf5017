"""Run the Solana dev chain in its own process (tests, `make run`): `start()` picks a free
loopback port unless given one, waits until getHealth answers, and `stop()` ends that process."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from modalcore.netports import HOST, free_port

START_TIMEOUT_S = 60.0


class SolanaDevchainError(Exception):
    """The dev chain did not come up."""


@dataclass
class SolanaDevchain:
    rpc_url: str
    genesis_hash: str
    process: subprocess.Popen[bytes]

    @property
    def caip2(self) -> str:
        """CAIP-2 id of a Solana chain: `solana:` + the first 32 characters of its genesis hash."""
        return f"solana:{self.genesis_hash[:32]}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _rpc(url: str, method: str) -> object:
    response = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": []}, timeout=2.0)
    return response.json()["result"]


def start(port: int | None = None, host: str = HOST) -> SolanaDevchain:
    port = port or free_port(host)
    url = f"http://{host}:{port}"
    log = tempfile.TemporaryFile()  # the chain's stderr, read back if it fails to start
    process = subprocess.Popen(
        [sys.executable, "-m", "modalcore_dev.solana_devchain", "--host", host, "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=log,
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            err = log.read().decode(errors="replace")
            raise SolanaDevchainError(f"solana devchain exited ({process.returncode}): {err[-2000:]}")
        try:
            if _rpc(url, "getHealth") == "ok":
                return SolanaDevchain(url, str(_rpc(url, "getGenesisHash")), process)
        except (httpx.HTTPError, KeyError, ValueError):
            pass
        time.sleep(0.1)
    process.kill()
    process.wait()
    raise SolanaDevchainError(f"solana devchain did not answer at {url} in {START_TIMEOUT_S:.0f} s")


@contextmanager
def running(port: int | None = None) -> Iterator[SolanaDevchain]:
    chain = start(port)
    try:
        yield chain
    finally:
        chain.stop()
