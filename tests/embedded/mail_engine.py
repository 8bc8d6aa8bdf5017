"""A real engine (uvicorn in a thread) with the embedded wallet mailing its codes to a local SMTP
server: what the approval-credential tests and the phone's companion tests (tests/handoff) run
against. Its mail budget is wide: every test signs in from 127.0.0.1 within a minute (the
budgets themselves: test_mail_budget.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore.ports.clock import Clock
from modalcore.server.app import create_app
from modalcore.server.config import parse_config
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, RunningServer, serve_app


def mail_engine_config(folder: Path, mail: LocalSmtpServer, **extra: Any) -> dict[str, Any]:
    """The engine's config: the test project, email sign-in through `mail`, a master key of its
    own in `folder`; `extra` top-level sections or settings."""
    key = folder / "master.key"
    key.write_text(MasterKey.generate().hex())
    return {
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key),
                     "smtp": {"host": "127.0.0.1", "port": mail.port, "tls": "none",
                              "sender": "Wallet <no-reply@modal.test>"},
                     "mail_budget": {"address_per_minute": 100, "address_per_hour": 1000}},
        **extra,
    }


@contextlib.contextmanager
def mail_engine(folder: Path, mail: LocalSmtpServer, *, clock: Clock | None = None, record_dir: Path | None = None,
                **extra: Any) -> Iterator[RunningServer]:
    """The engine of `mail_engine_config` serving on a free port until the block ends."""
    config = parse_config(mail_engine_config(folder, mail, **extra))
    with serve_app(create_app(config, clock=clock, record_dir=record_dir), free_port()) as running:
        yield running
