"""Start and stop local Hardhat 2 nodes (one per chain id) as subprocesses.

Each chain id has a config `chain/hardhat.<chainId>.config.js`; the node is run as
`node chain/node_modules/.bin/hardhat node --hostname 127.0.0.1 --port N --config ...` (the
same as `npx hardhat node ...` from `chain/`, without npx's extra process), so the PID we hold
is the listener's PID. `chain/node_modules` is installed with `npm ci` when missing.
"""

from __future__ import annotations

import atexit
import ctypes
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from modalcore.netports import free_port as free_port, port_in_use as port_in_use

REPO_ROOT = Path(__file__).resolve().parents[2]
CHAIN_DIR = Path(os.environ.get("MODALCORE_CHAIN_DIR", REPO_ROOT / "chain"))
HOST = "127.0.0.1"
DEFAULT_PORTS: dict[int, int] = {31337: 8545, 31338: 8546}
KEEP_LOGS_ENV = "MODALCORE_DEVCHAIN_KEEP_LOGS"  # set it to keep node logs after stop()


class NodeStartError(Exception):
    """A Hardhat node did not come up (port taken, process exited, or no answer in time)."""


class NpmInstallError(Exception):
    """`npm ci` in chain/ failed."""


def rpc_url(port: int, host: str = HOST) -> str:
    return f"http://{host}:{port}"




def hardhat_bin(chain_dir: Path = CHAIN_DIR) -> Path:
    return chain_dir / "node_modules" / "hardhat" / "internal" / "cli" / "bootstrap.js"


def _node_modules_current(chain_dir: Path, probe: Path | None = None) -> bool:
    marker = chain_dir / "node_modules" / ".package-lock.json"
    lock = chain_dir / "package-lock.json"
    if not (probe or hardhat_bin(chain_dir)).exists() or not marker.exists():
        return False
    return marker.stat().st_mtime >= lock.stat().st_mtime


def ensure_node_modules(chain_dir: Path = CHAIN_DIR, timeout: float = 600.0, probe: Path | None = None) -> bool:
    """Run `npm ci` in chain/ (or another npm dir whose installed `probe` file says it is there)
    unless node_modules is already installed from the current lock.

    Idempotent and safe to call from several processes at once (file lock). Returns True when
    it installed something.
    """
    if _node_modules_current(chain_dir, probe):
        return False
    npm = shutil.which("npm")
    if npm is None:
        raise NpmInstallError("npm is not on PATH (Node 20 and npm are needed for the dev chains)")
    digest = hashlib.sha1(str(chain_dir.resolve()).encode()).hexdigest()[:12]
    lock_path = Path(tempfile.gettempdir()) / f"modalcore-npm-ci-{digest}.lock"
    with open(lock_path, "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            if _node_modules_current(chain_dir, probe):
                return False
            result = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=chain_dir,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            if result.returncode != 0:
                raise NpmInstallError(f"npm ci failed in {chain_dir}:\n{result.stderr[-4000:]}")
            return True
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def rpc_chain_id(url: str, timeout: float = 1.0) -> int | None:
    """eth_chainId of the node at `url`, or None when nothing answers."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
    try:
        response = httpx.post(url, json=body, timeout=timeout)
        return int(response.json()["result"], 16)
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


def log_tail(path: Path, chars: int = 3000) -> str:
    """The end of a rig's log, for an error message ("" once the log is gone)."""
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


def end_process(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM, then SIGKILL after `timeout`."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)


@dataclass(eq=False)
class DevNode:
    """A running Hardhat node. `stop()` ends it (also at interpreter exit)."""

    chain_id: int
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    started_in: float = 0.0
    host: str = HOST
    keep_log: bool = False
    _stopped: bool = field(default=False, repr=False)

    @property
    def rpc_url(self) -> str:
        return rpc_url(self.port, self.host)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, chars: int = 3000) -> str:
        return log_tail(self.log_path, chars)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after `timeout`; waits until the port is closed."""
        if self._stopped:
            return
        self._stopped = True
        _RUNNING.discard(self)
        end_process(self.process, timeout)
        deadline = time.monotonic() + timeout
        while port_in_use(self.port, self.host) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not self.keep_log and not os.environ.get(KEEP_LOGS_ENV):
            self.log_path.unlink(missing_ok=True)


_RUNNING: set[DevNode] = set()


@atexit.register
def _stop_all_at_exit() -> None:
    for node in list(_RUNNING):
        node.stop(timeout=5.0)


def listener_pid(port: int, host: str = HOST) -> int | None:
    """PID of the process listening on host:port (from `ss -ltnpH`), or None."""
    ss = shutil.which("ss")
    if ss is None:
        return None
    out = subprocess.run([ss, "-ltnpH", f"sport = :{port}"], capture_output=True, text=True,
                         check=False).stdout
    for line in out.splitlines():
        if f"{host}:{port} " in line and "pid=" in line:
            return int(line.split("pid=", 1)[1].split(",", 1)[0])
    return None


def config_path(chain_id: int, chain_dir: Path = CHAIN_DIR) -> Path:
    return chain_dir / f"hardhat.{chain_id}.config.js"


def spawn_node(
    chain_id: int, port: int, *, chain_dir: Path = CHAIN_DIR, host: str = HOST
) -> DevNode:
    """Start the node process without waiting for it to answer (see `wait_ready`)."""
    config = config_path(chain_id, chain_dir)
    if not config.exists():
        raise NodeStartError(f"no Hardhat config for chain {chain_id}: {config}")
    if port_in_use(port, host):
        raise NodeStartError(f"port {port} on {host} is already in use")
    node = shutil.which("node")
    if node is None:
        raise NodeStartError("node is not on PATH")
    ensure_node_modules(chain_dir)
    log = tempfile.NamedTemporaryFile(
        prefix=f"hardhat-{chain_id}-{port}-", suffix=".log", delete=False
    )
    env = dict(os.environ, HARDHAT_DISABLE_TELEMETRY_PROMPT="true", NO_COLOR="1")
    process = subprocess.Popen(
        [node, str(hardhat_bin(chain_dir)), "node", "--hostname", host, "--port", str(port),
         "--config", config.name],
        cwd=chain_dir,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,  # Ctrl-C in a foreground CLI reaches us, and we stop it cleanly
        preexec_fn=_die_with_parent,
    )
    log.close()
    dev_node = DevNode(chain_id=chain_id, port=port, process=process, log_path=Path(log.name),
                       host=host)
    _RUNNING.add(dev_node)
    return dev_node


def wait_ready(node: DevNode, timeout: float = 60.0, started: float | None = None) -> DevNode:
    """Poll eth_chainId until the node answers with its chain id."""
    t0 = time.monotonic() if started is None else started
    deadline = t0 + timeout
    while True:
        if node.process.poll() is not None:
            node.keep_log = True
            node.stop()
            raise NodeStartError(
                f"hardhat node {node.chain_id} exited with {node.process.returncode}:\n"
                f"{node.log_tail()}"
            )
        answered = rpc_chain_id(node.rpc_url, timeout=1.0)
        if answered is not None:
            if answered != node.chain_id:
                node.keep_log = True
                node.stop()
                raise NodeStartError(
                    f"node on port {node.port} answers chain id {answered}, not {node.chain_id}"
                )
            node.started_in = time.monotonic() - t0
            return node
        if time.monotonic() > deadline:
            node.keep_log = True
            node.stop()
            raise NodeStartError(
                f"hardhat node {node.chain_id} did not answer within {timeout} s:\n"
                f"{node.log_tail()}"
            )
        time.sleep(0.1)


def _die_with_parent() -> None:
    """A node must not outlive the process that started it (a killed test run, a timeout)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def start_node(
    chain_id: int, port: int | None = None, *, chain_dir: Path = CHAIN_DIR, timeout: float = 60.0
) -> DevNode:
    """Start one node and wait until it answers eth_chainId."""
    t0 = time.monotonic()
    port = DEFAULT_PORTS.get(chain_id, 0) if port is None else port
    node = spawn_node(chain_id, port or free_port(), chain_dir=chain_dir)
    return wait_ready(node, timeout=timeout, started=t0)


def start_nodes(
    ports: Mapping[int, int] | None = None, *, chain_dir: Path = CHAIN_DIR, timeout: float = 60.0
) -> list[DevNode]:
    """Start one node per chain id (in parallel) and wait for all of them.

    `ports` maps chain id → port (default: 31337 → 8545, 31338 → 8546; port 0 = a free port).
    """
    t0 = time.monotonic()
    wanted = dict(DEFAULT_PORTS if ports is None else ports)
    ensure_node_modules(chain_dir)
    nodes: list[DevNode] = []
    try:
        for chain_id, port in wanted.items():
            nodes.append(spawn_node(chain_id, port or free_port(), chain_dir=chain_dir))
        for node in nodes:
            wait_ready(node, timeout=timeout, started=t0)
    except BaseException:
        stop_nodes(nodes)
        raise
    return nodes


def stop_nodes(nodes: list[DevNode]) -> None:
    for node in nodes:
        node.stop()
