"""The local relay in a process of its own (`python -m modalcore_dev.walletconnect_relay`), as
`make run` starts it: an engine serving on another thread reaches it in time, where a relay on a
test's own event loop is not."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from modalcore.netports import free_port


@contextmanager
def relay_process() -> Iterator[str]:
    """The relay on a free 127.0.0.1 port for the duration of the block: its ws:// URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "modalcore_dev.walletconnect_relay", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        said = process.stdout.readline() if process.stdout is not None else ""
        if "listening" not in said:
            raise RuntimeError(f"the local relay did not start (it said {said!r})")
        yield f"ws://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)
