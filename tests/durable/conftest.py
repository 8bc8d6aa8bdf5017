"""Fixtures of the three-host tests (issue 42 item 3: test_three_hosts.py, test_three_hosts_aa.py)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest

from modalcore.netports import free_port
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing.postgres import PostgresProcess


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresProcess]:
    """A PostgreSQL of this module's own (the outage test stops and starts it)."""
    with tempfile.TemporaryDirectory(prefix="mcpg-") as folder:
        process = PostgresProcess(folder)
        process.start()
        try:
            yield process
        finally:
            process.stop()


@pytest.fixture()
def smtp() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def front() -> int:
    """nginx's front port: the engines' public URL, fixed before the provider starts."""
    return free_port()


@pytest.fixture(scope="module")
def provider(front: int) -> Iterator[DevOidcProvider]:
    """The local OpenID provider (panva's oidc-provider) as Google, redirecting to the front."""
    running = DevOidcProvider(f"http://127.0.0.1:{front}/embedded/oidc/callback/google").start()
    yield running
    running.stop()
