"""Issue 14 defect 10: `make run` for a newcomer. The engine's port is checked before anything
starts (and the message says what to do), the chains take free ports unless pinned (two demos
side by side), httpx does not log each RPC call, and `make run` installs no test-only package."""

from __future__ import annotations

import logging
import socket
import subprocess
from pathlib import Path

import pytest

from modalcore_dev.demo import chain_ports, port_problem, quiet_logging, run

REPO = Path(__file__).resolve().parents[2]


def test_a_port_in_use_is_reported_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        problem = port_problem("127.0.0.1", port)
        assert problem is not None and f"make run PORT={port + 1}" in problem and "stop it" in problem
        assert run("127.0.0.1", port) == 1  # returns before starting any chain
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


def test_a_free_port_has_no_problem() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert port_problem("127.0.0.1", port) is None


def test_chains_take_free_ports_unless_pinned() -> None:
    first, second = chain_ports(None), chain_ports(None)
    assert set(first) == {31337, 31338} and not {8545, 8546} & set(first.values())
    assert first != second or len(set(first.values())) == 2  # each call asks the OS afresh
    assert chain_ports("9545, 9546") == {31337: 9545, 31338: 9546}
    with pytest.raises(ValueError, match="CHAIN_PORTS needs 2 ports"):
        chain_ports("9545")


def test_httpx_does_not_log_every_rpc_call() -> None:
    quiet_logging()
    assert not logging.getLogger("httpx").isEnabledFor(logging.INFO)


def test_make_run_installs_no_test_only_package() -> None:
    out = subprocess.run(["make", "-n", "-B", "run"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    installs = [line for line in out.splitlines() if "pip install" in line]
    assert installs and all("[test]" not in line for line in installs)


def test_the_dev_mail_server_does_not_log_every_smtp_command() -> None:
    """aiosmtpd printed ~11 INFO lines per sign-in mail into make run's terminal."""
    quiet_logging()
    assert not logging.getLogger("mail.log").isEnabledFor(logging.INFO)
