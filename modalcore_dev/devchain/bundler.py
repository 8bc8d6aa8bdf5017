"""A real ERC-4337 bundler per dev chain (issue 32): Pimlico's alto (bundler/package.json), one
process per Hardhat node, on a free 127.0.0.1 port.

alto has no host option and listens on every interface; it is started as
`node -r bundler/loopback.cjs .../alto.js ...`, whose preload makes its server listen on
127.0.0.1 only (a loopback-only network namespace would cut it off the Hardhat node).

Its executor and utility keys are dev accounts 17 and 18 (no other rig sends from them). alto
keeps the executor's nonce in memory: a chain reverted under a running bundler (evm_revert)
leaves it ahead of the chain, so a bundler lives only as long as nothing reverts its chain
(the `aachains` fixture snapshots before starting it and reverts after stopping it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from modalcore.netports import free_port, port_in_use
from modalcore_dev.devchain.nodes import (HOST, KEEP_LOGS_ENV, REPO_ROOT, _die_with_parent, end_process, ensure_node_modules,
                                          log_tail)

BUNDLER_DIR = Path(os.environ.get("MODALCORE_BUNDLER_DIR", REPO_ROOT / "bundler"))
EXECUTOR_KEY = "0x689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd"  # dev account 17
UTILITY_KEY = "0xde9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0"  # dev account 18
ENTRY_POINTS = "0x0000000071727De22E5E9d8BAf0edAc6f37da032"  # v0.7


class BundlerStartError(Exception):
    """alto did not come up (not installed, exited, or no answer in time)."""


def alto_bin(bundler_dir: Path = BUNDLER_DIR) -> Path:
    return bundler_dir / "node_modules" / "@pimlico" / "alto" / "esm" / "cli" / "alto.js"


@dataclass(eq=False)
class DevBundler:
    chain_id: int
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    started_in: float = 0.0
    keep_log: bool = False
    _stopped: bool = field(default=False, repr=False)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def log_tail(self, chars: int = 3000) -> str:
        return log_tail(self.log_path, chars)

    def stop(self, timeout: float = 10.0) -> None:
        if self._stopped:
            return
        self._stopped = True
        end_process(self.process, timeout)
        if not self.keep_log and not os.environ.get(KEEP_LOGS_ENV):
            self.log_path.unlink(missing_ok=True)


def _answers(url: str) -> bool:
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_supportedEntryPoints", "params": []}
    try:
        return bool(httpx.post(url, json=body, timeout=1.0).json().get("result"))
    except (httpx.HTTPError, ValueError, AttributeError):
        return False


def spawn_bundler(rpc_url: str, chain_id: int, port: int | None = None, *,
                  bundler_dir: Path = BUNDLER_DIR) -> DevBundler:
    node = shutil.which("node")
    if node is None:
        raise BundlerStartError("node is not on PATH")
    ensure_node_modules(bundler_dir, probe=alto_bin(bundler_dir))
    port = port or free_port()
    if port_in_use(port, HOST):
        raise BundlerStartError(f"port {port} on {HOST} is already in use")
    log = tempfile.NamedTemporaryFile(prefix=f"alto-{chain_id}-{port}-", suffix=".log", delete=False)
    process = subprocess.Popen(
        [node, "-r", str(bundler_dir / "loopback.cjs"), str(alto_bin(bundler_dir)),
         "--entrypoints", ENTRY_POINTS, "--executor-private-keys", EXECUTOR_KEY,
         "--utility-private-key", UTILITY_KEY, "--rpc-url", rpc_url, "--port", str(port),
         "--safe-mode", "false", "--deploy-simulations-contract", "true", "--log-level", "warn",
         "--utility-wallet-monitor", "false"],
        cwd=bundler_dir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, NO_COLOR="1"), start_new_session=True, preexec_fn=_die_with_parent,
    )
    log.close()
    return DevBundler(chain_id, port, process, Path(log.name))


def wait_ready(bundler: DevBundler, timeout: float = 60.0, started: float | None = None) -> DevBundler:
    t0 = time.monotonic() if started is None else started
    while not _answers(bundler.url):
        if bundler.process.poll() is not None or time.monotonic() > t0 + timeout:
            bundler.keep_log = True
            bundler.stop()
            raise BundlerStartError(f"alto for chain {bundler.chain_id} did not come up:\n{bundler.log_tail()}")
        time.sleep(0.1)
    bundler.started_in = time.monotonic() - t0
    return bundler


def start_bundlers(rpc_urls: Mapping[int, str], ports: Mapping[int, int] | None = None) -> list[DevBundler]:
    """One alto per chain (in parallel), each answering eth_supportedEntryPoints."""
    t0 = time.monotonic()
    bundlers: list[DevBundler] = []
    try:
        for chain_id, url in sorted(rpc_urls.items()):
            bundlers.append(spawn_bundler(url, chain_id, (ports or {}).get(chain_id)))
        for bundler in bundlers:
            wait_ready(bundler, started=t0)
    except BaseException:
        stop_bundlers(bundlers)
        raise
    return bundlers


def stop_bundlers(bundlers: list[DevBundler]) -> None:
    for bundler in bundlers:
        bundler.stop()


@contextmanager
def running_bundlers(rpc_urls: Mapping[int, str]) -> Iterator[dict[int, str]]:
    """chain id → bundler URL while the block runs."""
    bundlers = start_bundlers(rpc_urls)
    try:
        yield {b.chain_id: b.url for b in bundlers}
    finally:
        stop_bundlers(bundlers)
