"""An Anvil dev chain (issue 43): Foundry's node from npm `@foundry-rs/anvil` (chain/package.json),
which answers `eth_simulateV1` (Hardhat 2 does not), EIP-7702 and the P-256 precompile.

It runs beside the Hardhat chains, never in their place: the simulation tests and the approval
screenshots use it, every other flow keeps its Hardhat chain. The binary comes in the platform
package npm picked (`@foundry-rs/anvil-linux-amd64`, ...); npm skips the wrapper's postinstall,
which only checks it. Same lifecycle as a Hardhat node (`nodes.DevNode`: stopped at exit, dies
with its parent, listens on 127.0.0.1 only).
"""

from __future__ import annotations

import platform
import subprocess
import tempfile
import time
from pathlib import Path

from .nodes import _RUNNING, CHAIN_DIR, HOST, DevNode, NodeStartError, _die_with_parent, ensure_node_modules, free_port, wait_ready

ANVIL_CHAIN_ID = 31339
ANVIL_NAME = "Anvil"  # what the engine names an Anvil node (dev_networks(names=...)), whatever its chain id
_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}


def anvil_bin(chain_dir: Path = CHAIN_DIR) -> Path:
    arch = _ARCH.get(platform.machine().lower(), platform.machine())
    return chain_dir / "node_modules" / "@foundry-rs" / f"anvil-{platform.system().lower()}-{arch}" / "bin" / "anvil"


def start_anvil(chain_id: int = ANVIL_CHAIN_ID, port: int | None = None, *, chain_dir: Path = CHAIN_DIR,
                timeout: float = 60.0) -> DevNode:
    """Start Anvil on 127.0.0.1 (a free port unless given) and wait until it answers eth_chainId.
    Its 20 dev accounts are the same mnemonic's as Hardhat's, funded with 10,000 ETH each (the deploy step wants 20)."""
    t0 = time.monotonic()
    binary = anvil_bin(chain_dir)
    if not binary.exists():
        ensure_node_modules(chain_dir, probe=binary)
    if not binary.exists():
        raise NodeStartError(f"no Anvil binary for this platform: {binary}")
    port = port or free_port()
    log = tempfile.NamedTemporaryFile(prefix=f"anvil-{chain_id}-{port}-", suffix=".log", delete=False)
    process = subprocess.Popen(
        [str(binary), "--host", HOST, "--port", str(port), "--chain-id", str(chain_id), "--hardfork", "prague",
         "--accounts", "20"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=_die_with_parent)
    log.close()
    node = DevNode(chain_id=chain_id, port=port, process=process, log_path=Path(log.name), host=HOST)
    _RUNNING.add(node)
    return wait_ready(node, timeout=timeout, started=t0)
