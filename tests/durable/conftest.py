"""Fixtures of the durable store's tests that stop PostgreSQL or run three hosts (issue 42)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest

from modalcore.durable.postgres import PostgresDb
from modalcore.durable.schema import upgrade
from modalcore.netports import free_port
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing.postgres import PostgresProcess


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresProcess]:
    """A PostgreSQL of the test module's own (the outage tests stop and start it)."""
    with tempfile.TemporaryDirectory(prefix="mcpg-") as folder:
        process = PostgresProcess(folder)
        process.start()
        try:
            yield process
        finally:
            process.stop()


@pytest.fixture
def db_url(pg_url: str) -> str:
    """A new database of the run's cluster with the engine's schema."""
    db = PostgresDb(pg_url)
    upgrade(db)
    db.close()
    return pg_url


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
