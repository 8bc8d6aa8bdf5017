"""A throwaway PostgreSQL cluster (Debian's `postgresql` package, `make postgres`) for tests and
the load tool (issue 42): `initdb` into a temporary folder, the server on a free loopback port
with its unix socket in that folder, stopped (and the folder removed) when the block ends.

PostgreSQL refuses to run as root: as root (CI) the cluster belongs to the `postgres` user the
package creates (the folder is given to it, `initdb` and `postgres` run as it); as anyone else it
runs as the caller. The server is started in the foreground (`postgres`, not `pg_ctl`), so its
process is ours: `stop()` ends it (fast shutdown, then SIGKILL) and nothing is left running.
Authentication is `trust`, reachable from 127.0.0.1 only. A missing binary is an error, never a
skipped test (`PostgresMissing`: run `make postgres`).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql

from modalcore.netports import HOST, free_port, port_in_use

START_TIMEOUT_S = 30.0
SUPERUSER = "postgres"
_databases = itertools.count(1)


class PostgresMissing(RuntimeError):
    """The PostgreSQL server binaries are not installed (`make postgres` installs them)."""


def server_bin() -> Path:
    """The folder of `initdb` and `postgres`: Debian keeps them in /usr/lib/postgresql/N/bin
    (not on PATH); the newest version there, else whatever PATH has."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    if on_path is not None and shutil.which("initdb") is not None:
        return Path(on_path).resolve().parent
    raise PostgresMissing("PostgreSQL is missing: run `make postgres` (Debian's postgresql package)")


def _owner() -> str | None:
    """The user the cluster runs as: `postgres` when we are root, else None (ourselves)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresMissing("running as root needs the `postgres` user: run `make postgres`") from None
    return "postgres"


class PostgresProcess:
    """One cluster in `folder`, on one port that stays the same across stop() and start() (an
    outage): `url()` stays valid."""

    def __init__(self, folder: str, port: int | None = None) -> None:
        self.bin = server_bin()
        self.user = _owner()
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.port = port if port is not None else free_port()
        self.process: subprocess.Popen[bytes] | None = None
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(folder, entry.pw_uid, entry.pw_gid)
        os.chmod(folder, 0o700)
        self._run([str(self.bin / "initdb"), "-D", self.data, "-U", SUPERUSER, "-A", "trust",
                   "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"])

    def _run(self, command: list[str]) -> None:
        done = subprocess.run(command, user=self.user, capture_output=True, timeout=120, cwd=self.folder)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.decode(errors='replace')[-500:]}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@{HOST}:{self.port}/{database}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", self.data, "-p", str(self.port), "-k", self.folder,
             "-c", f"listen_addresses={HOST}", "-c", "fsync=off", "-c", "max_connections=200",
             "-c", "logging_collector=off"],
            user=self.user, cwd=self.folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("postgres did not start")
            time.sleep(0.1)

    def _ready(self) -> bool:
        if not port_in_use(self.port):
            return False
        try:
            with psycopg.connect(self.url(), connect_timeout=2, autocommit=True) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGINT)  # fast shutdown: sessions ended, data kept
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its URL."""
        name = name or f"t{os.getpid()}_{next(_databases)}"
        with psycopg.connect(self.url(), connect_timeout=10, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)


@contextlib.contextmanager
def postgres_process() -> Iterator[PostgresProcess]:
    """A started cluster, stopped and removed when the block ends."""
    folder = tempfile.mkdtemp(prefix="mcpg-")
    try:
        server = PostgresProcess(folder)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
